import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize'
import { common } from './columns.ts'

export class BridgeTokenUse extends Model<InferAttributes<BridgeTokenUse>, InferCreationAttributes<BridgeTokenUse>> {
  declare jti: string
  declare expiresAt: Date
  declare usedAt: CreationOptional<Date>
}

export function initBridgeTokenUse(sequelize: Sequelize) {
  BridgeTokenUse.init(
    {
      jti: { type: DataTypes.TEXT, primaryKey: true },
      expiresAt: { type: DataTypes.DATE, allowNull: false },
      usedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: DataTypes.NOW },
    },
    { sequelize, tableName: 'bridge_token_uses', timestamps: false, ...common },
  )
}
