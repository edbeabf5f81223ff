import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize'
import { common, timestamp } from './columns.ts'

export class ProgramAssignment extends Model<
  InferAttributes<ProgramAssignment>,
  InferCreationAttributes<ProgramAssignment>
> {
  declare userId: string
  declare programId: string
  declare assignedBy: CreationOptional<string | null>
  declare createdAt: CreationOptional<Date>
}

export function initProgramAssignment(sequelize: Sequelize) {
  ProgramAssignment.init(
    {
      userId: { type: DataTypes.UUID, primaryKey: true },
      programId: { type: DataTypes.UUID, primaryKey: true },
      assignedBy: DataTypes.UUID,
      createdAt: timestamp(),
    },
    { sequelize, tableName: 'program_assignments', updatedAt: false, ...common },
  )
}
