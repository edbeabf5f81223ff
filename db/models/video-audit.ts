import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize'
import { common } from './columns.ts'

export class VideoAudit extends Model<InferAttributes<VideoAudit>, InferCreationAttributes<VideoAudit>> {
  declare userId: string
  declare videoId: string
  declare courseId: string
  declare videoDuration: number
  declare videoProgress: number
  declare lastViewedAt: CreationOptional<Date>
}

export function initVideoAudit(sequelize: Sequelize) {
  VideoAudit.init(
    {
      userId: { type: DataTypes.UUID, primaryKey: true },
      videoId: { type: DataTypes.UUID, primaryKey: true },
      courseId: { type: DataTypes.UUID, allowNull: false },
      videoDuration: { type: DataTypes.INTEGER, allowNull: false },
      videoProgress: { type: DataTypes.INTEGER, allowNull: false },
      lastViewedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: DataTypes.NOW },
    },
    { sequelize, tableName: 'video_audits', timestamps: false, ...common },
  )
}
