import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize'
import { common, timestamp } from './columns.ts'

export class Setting extends Model<InferAttributes<Setting>, InferCreationAttributes<Setting>> {
  declare key: string
  declare value: unknown
  declare updatedAt: CreationOptional<Date>
}

export function initSetting(sequelize: Sequelize) {
  Setting.init(
    {
      key: { type: DataTypes.TEXT, primaryKey: true },
      value: { type: DataTypes.JSONB, allowNull: false },
      updatedAt: timestamp(),
    },
    { sequelize, tableName: 'settings', createdAt: false, ...common },
  )
}
