import { DataTypes, Model, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize'
import { common } from './columns.ts'

export class VideoPrerequisite extends Model<
  InferAttributes<VideoPrerequisite>,
  InferCreationAttributes<VideoPrerequisite>
> {
  declare videoId: string
  declare prerequisiteId: string
  declare courseId: string
}

export function initVideoPrerequisite(sequelize: Sequelize) {
  VideoPrerequisite.init(
    {
      videoId: { type: DataTypes.UUID, primaryKey: true },
      prerequisiteId: { type: DataTypes.UUID, primaryKey: true },
      courseId: { type: DataTypes.UUID, allowNull: false },
    },
    { sequelize, tableName: 'video_prerequisites', timestamps: false, ...common },
  )
}
