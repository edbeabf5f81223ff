import { DataTypes } from 'sequelize'

// Attribute shapes several models share. New objects per use: Sequelize writes `field` into the
// attribute object it is given.

export const uuid = () => ({ type: DataTypes.UUID, defaultValue: DataTypes.UUIDV4, primaryKey: true })
export const timestamp = () => ({ type: DataTypes.DATE, allowNull: false })
export const common = { underscored: true }
