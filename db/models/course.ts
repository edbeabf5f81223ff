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
import type { ContentEntry } from './content-entry.ts'
import type { StoredFile } from './stored-file.ts'

export class Course extends Model<InferAttributes<Course>, InferCreationAttributes<Course>> {
  declare id: CreationOptional<string>
  declare title: string
  declare description: string
  declare imageKey: CreationOptional<string | null>
  /** certificates of completion are given for it */
  declare certificates: CreationOptional<boolean>
  /** reminder mails about its due dates are sent (off: none, whatever the assignments say) */
  declare reminders: CreationOptional<boolean>
  declare certificateIssuer: CreationOptional<string>
  declare certificateSignatureKey: CreationOptional<string | null>
  declare createdAt: CreationOptional<Date>
  declare updatedAt: CreationOptional<Date>
  declare image?: NonAttribute<StoredFile | null>
  declare entries?: NonAttribute<ContentEntry[]>
}

export function initCourse(sequelize: Sequelize) {
  Course.init(
    {
      id: uuid(),
      title: { type: DataTypes.TEXT, allowNull: false },
      description: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
      imageKey: DataTypes.TEXT,
      certificates: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      reminders: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
      certificateIssuer: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
      certificateSignatureKey: DataTypes.TEXT,
      createdAt: timestamp(),
      updatedAt: timestamp(),
    },
    { sequelize, tableName: 'courses', ...common },
  )
}
