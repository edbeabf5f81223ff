import { DataTypes, Model, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize'
import { common } from './columns.ts'

export class Role extends Model<InferAttributes<Role>, InferCreationAttributes<Role>> {
  declare rId: number
  declare name: string
}

export function initRole(sequelize: Sequelize) {
  Role.init(
    {
      rId: { type: DataTypes.SMALLINT, primaryKey: true, field: 'r_id' },
      name: { type: DataTypes.TEXT, allowNull: false },
    },
    { sequelize, tableName: 'roles', timestamps: false, ...common },
  )
}
