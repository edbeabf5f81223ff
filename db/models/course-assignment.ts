import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize'
import { common, timestamp } from './columns.ts'

export class CourseAssignment extends Model<
  InferAttributes<CourseAssignment>,
  InferCreationAttributes<CourseAssignment>
> {
  declare userId: string
  declare courseId: string
  declare assignedBy: CreationOptional<string | null>
  declare createdAt: CreationOptional<Date>
}

export function initCourseAssignment(sequelize: Sequelize) {
  CourseAssignment.init(
    {
      userId: { type: DataTypes.UUID, primaryKey: true },
      courseId: { type: DataTypes.UUID, primaryKey: true },
      assignedBy: DataTypes.UUID,
      createdAt: timestamp(),
    },
    { sequelize, tableName: 'course_assignments', updatedAt: false, ...common },
  )
}
