/** The product's name, in one place. */
export const PRODUCT_NAME = 'DataPath Academy'
