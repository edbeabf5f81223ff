import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize'
import { common, timestamp } from './columns.ts'

// Heartbeats write this table with SQL of their own (the progress service).
export class VideoProgress extends Model<InferAttributes<VideoProgress>, InferCreationAttributes<VideoProgress>> {
  declare userId: string
  declare videoId: string
  declare courseId: string
  /** one bit per second of the video, set where it was played; read as a string of 0s and 1s */
  declare watched: CreationOptional<string>
  declare watchedSeconds: CreationOptional<number>
  declare lastPosition: CreationOptional<number>
  declare completed: CreationOptional<boolean>
  declare completedAt: CreationOptional<Date | null>
  /** seconds the next heartbeat may still claim, as of updatedAt: it refills with wall-clock time */
  declare credit: CreationOptional<number>
  declare createdAt: CreationOptional<Date>
  declare updatedAt: CreationOptional<Date>
}

export function initVideoProgress(sequelize: Sequelize) {
  VideoProgress.init(
    {
      userId: { type: DataTypes.UUID, primaryKey: true },
      videoId: { type: DataTypes.UUID, primaryKey: true },
      courseId: { type: DataTypes.UUID, allowNull: false },
      // bit varying, which Sequelize has no type for: named as PostgreSQL spells it
      watched: { type: 'VARBIT', allowNull: false, defaultValue: '' },
      watchedSeconds: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      lastPosition: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      completed: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      completedAt: DataTypes.DATE,
      credit: { type: DataTypes.REAL, allowNull: false, defaultValue: 60 },
      createdAt: timestamp(),
      updatedAt: timestamp(),
    },
    { sequelize, tableName: 'video_progress', ...common },
  )
}
