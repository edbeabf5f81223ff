import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type NonAttribute,
  type Sequelize,
} from 'sequelize'
import { common, timestamp, uuid } from './columns.ts'
import type { StoredFile } from './stored-file.ts'

export type ContentKind = 'video' | 'document' | 'scenario'

export class ContentEntry extends Model<InferAttributes<ContentEntry>, InferCreationAttributes<ContentEntry>> {
  declare id: CreationOptional<string>
  declare courseId: string
  declare kind: ContentKind
  declare orderId: CreationOptional<number>
  declare title: CreationOptional<string>
  declare description: CreationOptional<string>
  declare visibility: CreationOptional<boolean>
  declare preview: CreationOptional<boolean>
  declare embedUrl: CreationOptional<string | null>
  declare duration: CreationOptional<number | null>
  declare fileKey: CreationOptional<string | null>
  declare createdAt: CreationOptional<Date>
  declare updatedAt: CreationOptional<Date>
  declare file?: NonAttribute<StoredFile | null>
  declare prerequisites?: NonAttribute<ContentEntry[]>
}

export function initContentEntry(sequelize: Sequelize) {
  ContentEntry.init(
    {
      id: uuid(),
      courseId: { type: DataTypes.UUID, allowNull: false },
      kind: { type: DataTypes.TEXT, allowNull: false },
      orderId: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      title: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
      description: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
      visibility: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
      preview: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      embedUrl: DataTypes.TEXT,
      duration: DataTypes.INTEGER,
      fileKey: DataTypes.TEXT,
      createdAt: timestamp(),
      updatedAt: timestamp(),
    },
    { sequelize, tableName: 'content_entries', ...common },
  )
}
