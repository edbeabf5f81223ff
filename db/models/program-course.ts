import { DataTypes, Model, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize'
import { common } from './columns.ts'

export class ProgramCourse extends Model<InferAttributes<ProgramCourse>, InferCreationAttributes<ProgramCourse>> {
  declare programId: string
  declare courseId: string
  declare position: number
}

export function initProgramCourse(sequelize: Sequelize) {
  ProgramCourse.init(
    {
      programId: { type: DataTypes.UUID, primaryKey: true },
      courseId: { type: DataTypes.UUID, primaryKey: true },
      position: { type: DataTypes.INTEGER, allowNull: false },
    },
    { sequelize, tableName: 'program_courses', timestamps: false, ...common },
  )
}
