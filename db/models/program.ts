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
import type { Course } from './course.ts'
import type { ProgramCourse } from './program-course.ts'
import type { StoredFile } from './stored-file.ts'

export class Program extends Model<InferAttributes<Program>, InferCreationAttributes<Program>> {
  declare id: CreationOptional<string>
  declare title: string
  declare description: CreationOptional<string>
  declare path: CreationOptional<string>
  declare learningPath: CreationOptional<string>
  declare duration: CreationOptional<string>
  declare price: CreationOptional<string | null>
  declare imageKey: CreationOptional<string | null>
  /** certificates of completion are given for it */
  declare certificates: CreationOptional<boolean>
  /** reminder mails about its due dates are sent (off: none, whatever the assignments say) */
  declare reminders: CreationOptional<boolean>
  declare certificateIssuer: CreationOptional<string>
  declare certificateSignatureKey: CreationOptional<string | null>
  declare createdAt: CreationOptional<Date>
  declare updatedAt: CreationOptional<Date>
  declare image?: NonAttribute<StoredFile | null>
  /** with the join row, whose position orders the courses */
  declare courses?: NonAttribute<(Course & { ProgramCourse: ProgramCourse })[]>
}

export function initProgram(sequelize: Sequelize) {
  Program.init(
    {
      id: uuid(),
      title: { type: DataTypes.TEXT, allowNull: false },
      description: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
      path: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
      learningPath: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
      duration: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
      price: DataTypes.DECIMAL(10, 2),
      imageKey: DataTypes.TEXT,
      certificates: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      reminders: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
      certificateIssuer: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
      certificateSignatureKey: DataTypes.TEXT,
      createdAt: timestamp(),
      updatedAt: timestamp(),
    },
    { sequelize, tableName: 'programs', ...common },
  )
}
