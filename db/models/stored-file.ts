import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize'
import { common, timestamp } from './columns.ts'

export class StoredFile extends Model<InferAttributes<StoredFile>, InferCreationAttributes<StoredFile>> {
  declare key: string
  declare name: string
  declare contentType: string
  declare size: number
  declare purpose:
    | 'course_image'
    | 'program_image'
    | 'document'
    | 'assessment'
    | 'user_import'
    | 'import_errors'
    | 'certificate_signature'
  declare uploadedBy: string | null
  declare createdAt: CreationOptional<Date>
}

export function initStoredFile(sequelize: Sequelize) {
  StoredFile.init(
    {
      key: { type: DataTypes.TEXT, primaryKey: true },
      name: { type: DataTypes.TEXT, allowNull: false },
      contentType: { type: DataTypes.TEXT, allowNull: false },
      size: { type: DataTypes.INTEGER, allowNull: false },
      purpose: { type: DataTypes.TEXT, allowNull: false },
      uploadedBy: DataTypes.UUID,
      createdAt: timestamp(),
    },
    { sequelize, tableName: 'files', updatedAt: false, ...common },
  )
}
