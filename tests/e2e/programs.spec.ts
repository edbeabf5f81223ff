import { type Page } from '@playwright/test'
import { expect, test } from './fixtures.ts'
import { whenHydrated } from './helpers.ts'

// An admin manages a program end to end: creates it, edits it, puts its courses in order by keyboard,
// assigns it to a learner, is refused the delete while the learner has it, and deletes it once they
// confirm that the learner is unassigned with it. The demo data is left as the seed made it.

const NAME = 'Query Craft Path'
const RENAMED = 'Query Craft Path, Revised'
const FIRST = 'SQL Fundamentals'
const SECOND = 'Building ETL Pipelines'
const LEARNER = { userName: 'learner2', name: 'Omar Haddad' }

const handle = (page: Page, title: string) => page.locator('[data-movable-handle]', { hasText: title })

test('an admin creates, edits, reorders, assigns and deletes a program', async ({ page, signInAs }) => {
  test.setTimeout(120_000)
  await signInAs('admin')

  // create
  await page.goto('/admin/newProgram')
  await whenHydrated(page)
  await page.getByLabel('Program Name').fill(NAME)
  await page.getByLabel('Program Path').fill('query-craft')
  await page.getByLabel('Program Learning Path').fill('From queries to pipelines')
  await page.getByLabel('Program Duration').fill('4 weeks')
  await page.getByLabel('Program Description').fill('Two courses, queries first.')
  await page.getByLabel('Price').fill('99')
  const courses = page.getByRole('group', { name: 'Courses' })
  await courses.getByRole('checkbox', { name: FIRST }).check()
  await courses.getByRole('checkbox', { name: SECOND }).check()
  await page.getByRole('button', { name: 'Save' }).click()
  await expect(page.getByText('Program created.')).toBeVisible()

  // open it from the Program List by keyboard: the row's name is a link
  const search = page.getByRole('searchbox', { name: 'Search programs' })
  await search.fill('query craft')
  await search.press('Enter')
  const link = page.getByRole('link', { name: NAME })
  await link.focus()
  await page.keyboard.press('Enter')
  await expect(page.getByRole('heading', { name: NAME, level: 1 })).toBeVisible()
  const inOrder = page.getByRole('list', { name: 'Courses in order' })
  await expect(inOrder.getByRole('link')).toHaveText([FIRST, SECOND])

  // edit: a field refused in the new form's words, then saved; the courses stay as they were
  await page.getByRole('link', { name: 'Edit Program' }).click()
  await expect(page.getByRole('heading', { name: 'Edit Program', level: 1 })).toBeVisible()
  await whenHydrated(page)
  await expect(page.getByLabel('Program Name')).toHaveValue(NAME)
  await page.getByLabel('Price').fill('')
  await page.getByRole('button', { name: 'Save' }).click()
  await expect(page.getByLabel('Price')).toHaveAccessibleDescription('Price is required field.')
  await page.getByLabel('Price').fill('120')
  await page.getByLabel('Program Name').fill(RENAMED)
  await page.getByRole('button', { name: 'Save' }).click()
  await expect(page.getByText('Program updated.')).toBeVisible()
  await expect(page.getByRole('heading', { name: RENAMED, level: 1 })).toBeVisible()
  await expect(inOrder.getByRole('link')).toHaveText([FIRST, SECOND])

  // reorder by keyboard
  await page.getByRole('link', { name: 'Rearrange Courses' }).click()
  await expect(page.getByRole('heading', { name: `Rearrange Program: ${RENAMED}` })).toBeVisible()
  await whenHydrated(page)
  await handle(page, SECOND).focus()
  await page.keyboard.press('Space')
  await page.keyboard.press('ArrowUp')
  await page.keyboard.press('Space')
  await expect(page.getByRole('list', { name: 'Program courses' }).locator('[data-movable-handle]')).toHaveText([
    new RegExp(SECOND),
    new RegExp(FIRST),
  ])
  await page.getByRole('button', { name: 'Save' }).click()
  await expect(page.getByText('The new order is saved.')).toBeVisible()
  await expect(inOrder.getByRole('link')).toHaveText([SECOND, FIRST])
  const programPath = new URL(page.url()).pathname

  // assign it to a learner from their page
  await page.goto('/admin/users')
  await page.getByRole('searchbox', { name: 'Search Users List' }).fill(LEARNER.userName)
  await page.getByRole('searchbox', { name: 'Search Users List' }).press('Enter')
  await page.getByRole('link', { name: LEARNER.name.split(' ')[0] }).click()
  await expect(page.getByRole('heading', { name: 'User Details' })).toBeVisible()
  await page.getByLabel('Program', { exact: true }).selectOption({ label: RENAMED })
  await page.getByRole('button', { name: 'Assign Program' }).click()
  await expect(page.getByText('Program assigned.')).toBeVisible()

  // the program lists the learner; the delete is refused until the admin confirms the unassignment
  await page.goto(programPath)
  await expect(page.getByRole('link', { name: LEARNER.name })).toBeVisible()
  await whenHydrated(page)
  await page.getByRole('link', { name: 'Delete Program' }).click()
  const dialog = page.getByRole('alertdialog', { name: 'Delete program' })
  await dialog.getByRole('button', { name: 'Delete' }).click()
  await expect(dialog.getByRole('alert')).toHaveText(/This program is assigned to 1 learner\./)
  await dialog.getByRole('checkbox', { name: 'Unassign its learner and delete the program' }).check()
  await dialog.getByRole('button', { name: 'Delete' }).click()
  await expect(page.getByText('Program deleted.')).toBeVisible()
  await expect(page.getByRole('heading', { name: 'Program List', level: 1 })).toBeVisible()
  await expect(page.getByRole('link', { name: RENAMED })).toHaveCount(0)
})
