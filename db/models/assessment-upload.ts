import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type NonAttribute,
  type Sequelize,
} from 'sequelize'
import { common, timestamp, uuid } from './columns.ts'
import type { ContentEntry } from './content-entry.ts'
import type { Course } from './course.ts'
import type { StoredFile } from './stored-file.ts'
import type { User } from './user.ts'

export class AssessmentUpload extends Model<
  InferAttributes<AssessmentUpload>,
  InferCreationAttributes<AssessmentUpload>
> {
  declare id: CreationOptional<string>
  declare userId: string
  declare courseId: string
  declare scenarioId: string
  declare fileKey: string
  declare createdAt: CreationOptional<Date>
  declare file?: NonAttribute<StoredFile | null>
  declare scenario?: NonAttribute<ContentEntry | null>
  declare user?: NonAttribute<User | null>
  declare course?: NonAttribute<Course | null>
}

export function initAssessmentUpload(sequelize: Sequelize) {
  AssessmentUpload.init(
    {
      id: uuid(),
      userId: { type: DataTypes.UUID, allowNull: false },
      courseId: { type: DataTypes.UUID, allowNull: false },
      scenarioId: { type: DataTypes.UUID, allowNull: false },
      fileKey: { type: DataTypes.TEXT, allowNull: false },
      createdAt: timestamp(),
    },
    { sequelize, tableName: 'assessment_uploads', updatedAt: false, ...common },
  )
}
