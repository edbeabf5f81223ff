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
  /** due at the end of this calendar day (YYYY-MM-DD) in the learner's time zone */
  declare dueDate: CreationOptional<string | null>
  /** due at this exact time (never with dueDate) */
  declare dueAt: CreationOptional<Date | null>
  /** this assignment's own reminder plan; null: the portal's */
  declare reminderPlan: CreationOptional<{ before: number[]; after: number[] } | null>
  declare createdAt: CreationOptional<Date>
}

export function initCourseAssignment(sequelize: Sequelize) {
  CourseAssignment.init(
    {
      userId: { type: DataTypes.UUID, primaryKey: true },
      courseId: { type: DataTypes.UUID, primaryKey: true },
      assignedBy: DataTypes.UUID,
      dueDate: DataTypes.DATEONLY,
      dueAt: DataTypes.DATE,
      reminderPlan: DataTypes.JSONB,
      createdAt: timestamp(),
    },
    { sequelize, tableName: 'course_assignments', updatedAt: false, ...common },
  )
}
