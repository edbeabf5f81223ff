import { DEMO_ACCOUNTS, DEMO_PASSWORD } from '#db/seeds/demo.ts'

export function printDemoAccounts() {
  console.log(`Demo accounts (password for all: ${DEMO_PASSWORD}):`)
  for (const account of DEMO_ACCOUNTS)
    console.log(`  ${account.role.padEnd(10)} ${account.userName.padEnd(14)} ${account.email}`)
}
