import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize'
import { common, timestamp, uuid } from './columns.ts'

export class User extends Model<InferAttributes<User>, InferCreationAttributes<User>> {
  declare id: CreationOptional<string>
  declare firstName: string
  declare lastName: CreationOptional<string>
  declare userName: string
  declare email: string
  declare passwordHash: string | null
  declare roleId: CreationOptional<number>
  declare tokenVersion: CreationOptional<number>
  declare externalId: CreationOptional<string | null>
  /** an IANA time zone; null: the portal's DEFAULT_TIME_ZONE */
  declare timeZone: CreationOptional<string | null>
  /** false: the learner turned reminder mails off (counts only where the admins allow it) */
  declare reminderMails: CreationOptional<boolean>
  /** when an admin disabled the account (it cannot sign in); null while it is enabled */
  declare disabledAt: CreationOptional<Date | null>
  /** who disabled it: null for an operator at the command line, or once that account is gone */
  declare disabledBy: CreationOptional<string | null>
  declare createdAt: CreationOptional<Date>
  declare updatedAt: CreationOptional<Date>
}

export function initUser(sequelize: Sequelize) {
  User.init(
    {
      id: uuid(),
      firstName: { type: DataTypes.TEXT, allowNull: false },
      lastName: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
      userName: { type: DataTypes.CITEXT, allowNull: false },
      email: { type: DataTypes.CITEXT, allowNull: false },
      passwordHash: DataTypes.TEXT,
      roleId: { type: DataTypes.SMALLINT, allowNull: false, defaultValue: 2 },
      tokenVersion: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      externalId: DataTypes.TEXT,
      timeZone: DataTypes.TEXT,
      reminderMails: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
      disabledAt: DataTypes.DATE,
      disabledBy: DataTypes.UUID,
      createdAt: timestamp(),
      updatedAt: timestamp(),
    },
    { sequelize, tableName: 'users', ...common },
  )
}
