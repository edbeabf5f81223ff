import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize'
import { common, timestamp } from './columns.ts'

export class VideoProgress extends Model<InferAttributes<VideoProgress>, InferCreationAttributes<VideoProgress>> {
  declare userId: string
  declare videoId: string
  declare courseId: string
  declare watchedSeconds: CreationOptional<number>
  declare lastPosition: CreationOptional<number>
  declare completed: CreationOptional<boolean>
  declare completedAt: CreationOptional<Date | null>
  declare createdAt: CreationOptional<Date>
  declare updatedAt: CreationOptional<Date>
}

export function initVideoProgress(sequelize: Sequelize) {
  VideoProgress.init(
    {
      userId: { type: DataTypes.UUID, primaryKey: true },
      videoId: { type: DataTypes.UUID, primaryKey: true },
      courseId: { type: DataTypes.UUID, allowNull: false },
      watchedSeconds: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      lastPosition: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      completed: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      completedAt: DataTypes.DATE,
      createdAt: timestamp(),
      updatedAt: timestamp(),
    },
    { sequelize, tableName: 'video_progress', ...common },
  )
}
