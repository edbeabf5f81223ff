import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize'
import { common, timestamp, uuid } from './columns.ts'

export class PasswordResetToken extends Model<
  InferAttributes<PasswordResetToken>,
  InferCreationAttributes<PasswordResetToken>
> {
  declare id: CreationOptional<string>
  declare userId: string
  declare tokenHash: string
  declare purpose: 'reset' | 'invite'
  declare expiresAt: Date
  declare usedAt: CreationOptional<Date | null>
  declare createdAt: CreationOptional<Date>
}

export function initPasswordResetToken(sequelize: Sequelize) {
  PasswordResetToken.init(
    {
      id: uuid(),
      userId: { type: DataTypes.UUID, allowNull: false },
      tokenHash: { type: DataTypes.TEXT, allowNull: false },
      purpose: { type: DataTypes.TEXT, allowNull: false },
      expiresAt: { type: DataTypes.DATE, allowNull: false },
      usedAt: DataTypes.DATE,
      createdAt: timestamp(),
    },
    { sequelize, tableName: 'password_reset_tokens', updatedAt: false, ...common },
  )
}
