import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize'
import { common } from './columns.ts'

export class AccessLogPing extends Model<InferAttributes<AccessLogPing>, InferCreationAttributes<AccessLogPing>> {
  declare id: CreationOptional<string>
  declare userId: string
  declare pageName: string
  declare recordedAt: CreationOptional<Date>
  declare courseId: CreationOptional<string | null>
  declare videoId: CreationOptional<string | null>
}

export function initAccessLogPing(sequelize: Sequelize) {
  AccessLogPing.init(
    {
      id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
      userId: { type: DataTypes.UUID, allowNull: false },
      pageName: { type: DataTypes.TEXT, allowNull: false },
      recordedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: DataTypes.NOW },
      courseId: DataTypes.UUID,
      videoId: DataTypes.UUID,
    },
    { sequelize, tableName: 'access_log_pings', timestamps: false, ...common },
  )
}
