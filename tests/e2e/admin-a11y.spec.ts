import { type Page } from '@playwright/test'
import { expect, test } from './fixtures.ts'
import { AXE_VIEWPORTS, expectAccessible, whenHydrated } from './helpers.ts'

// The admin's content pages pass axe (no serious or critical violation) as an admin sees them, on a
// desktop and on a phone (see AXE_VIEWPORTS): the course page with each tab, the document viewer and each
// edit dialog open, the forms that add to a course, both rearrange pages, the programs (the list, a program's
// page with its delete dialog, its edit and rearrange pages), the dashboard and the admin's own account pages.
// Only looked at, nothing saved: the demo course is left as the seed made it.

const COURSE = 'Building ETL Pipelines'
const PROGRAM = 'Analytics Engineering Path'

/** Opens the demo course's page from the course list, as an admin finds it, and answers its address. */
async function openCourse(page: Page) {
  await page.goto('/admin/courses')
  await page.getByRole('link', { name: COURSE }).first().click()
  await expect(page.getByRole('heading', { name: COURSE, level: 1 })).toBeVisible()
  await whenHydrated(page)
  return new URL(page.url()).pathname
}

const courseId = (coursePath: string) => coursePath.split('/').pop()!

async function openTab(page: Page, tab: 'Course videos' | 'Documents' | 'Scenarios' | 'Labs') {
  await page.getByRole('navigation', { name: 'Course contents' }).getByRole('link', { name: tab }).click()
  await expect(page.getByRole('region', { name: tab })).toBeVisible()
}

for (const [width, viewport] of AXE_VIEWPORTS) {
  test.describe(`admin content pages on a ${width}`, () => {
    test.use({ viewport })
    // axe takes a few seconds a page on a busy machine, and each test looks at many
    test.describe.configure({ timeout: 120_000 })

    test.beforeEach(async ({ signInAs }) => {
      await signInAs('admin')
    })

    test('the course page, each tab and each edit dialog', async ({ page }) => {
      await openCourse(page)

      await openTab(page, 'Course videos')
      await expectAccessible(page, 'the videos tab')
      await page.getByRole('link', { name: 'Edit Course Details' }).click()
      await expect(page.getByRole('dialog', { name: 'Edit Course Details' })).toBeVisible()
      await expectAccessible(page, 'the Edit Course Details dialog')
      await page.keyboard.press('Escape')
      await expect(page.getByRole('dialog')).toHaveCount(0)
      await page.getByRole('link', { name: 'Certificate settings' }).click()
      await expect(page.getByRole('dialog', { name: 'Certificate settings' })).toBeVisible()
      await expectAccessible(page, 'the Certificate settings dialog')
      await page.keyboard.press('Escape')
      await expect(page.getByRole('dialog')).toHaveCount(0)
      await page.getByRole('link', { name: 'Edit What ETL Is and Where It Fits' }).click()
      await expect(page.getByRole('dialog', { name: 'Edit video' })).toBeVisible()
      await expectAccessible(page, 'the edit video dialog')
      await page.keyboard.press('Escape')
      await expect(page.getByRole('dialog')).toHaveCount(0)

      await openTab(page, 'Documents')
      await expectAccessible(page, 'the documents tab')
      // the viewer: the document's name opens it
      const document = page.getByTestId('admin-document').first().getByRole('link').first()
      const name = (await document.textContent()) ?? ''
      await document.click()
      await expect(page.getByRole('dialog', { name })).toBeVisible()
      await expectAccessible(page, 'the View Document dialog')
      await page.keyboard.press('Escape')
      await expect(page.getByRole('dialog')).toHaveCount(0)
      await page
        .getByRole('link', { name: /^Edit / })
        .first()
        .click()
      await expect(page.getByRole('dialog', { name: 'Edit document' })).toBeVisible()
      await expectAccessible(page, 'the edit document dialog')
      await page.keyboard.press('Escape')
      await expect(page.getByRole('dialog')).toHaveCount(0)

      await openTab(page, 'Scenarios')
      await expectAccessible(page, 'the scenarios tab')
      // the confirmation is only opened: Cancel leaves the scenario as it is
      await page
        .getByRole('link', { name: /^Delete / })
        .first()
        .click()
      await expect(page.getByRole('alertdialog', { name: 'Delete scenario' })).toBeVisible()
      await expectAccessible(page, 'the delete scenario dialog')
      await page.getByRole('link', { name: 'Cancel' }).click()
      await expect(page.getByRole('alertdialog')).toHaveCount(0)

      await openTab(page, 'Labs')
      await expect(page.getByRole('heading', { name: 'Add Lab' })).toBeVisible()
      await expectAccessible(page, 'the labs tab')
      // the demo's labs are in other courses: SQL Fundamentals has one. Only opened: Cancel leaves it as it is
      await page.goto('/admin/courses')
      await page.getByRole('link', { name: 'SQL Fundamentals' }).first().click()
      await expect(page.getByRole('heading', { name: 'SQL Fundamentals', level: 1 })).toBeVisible()
      await whenHydrated(page)
      await openTab(page, 'Labs')
      await expectAccessible(page, 'the labs tab with a lab')
      await page
        .getByRole('link', { name: /^Delete / })
        .first()
        .click()
      await expect(page.getByRole('alertdialog', { name: 'Delete lab' })).toBeVisible()
      await expectAccessible(page, 'the delete lab dialog')
      await page.getByRole('link', { name: 'Cancel' }).click()
      await expect(page.getByRole('alertdialog')).toHaveCount(0)
      await page.getByTestId('admin-lab').first().getByRole('link').first().click()
      await expect(page.getByRole('heading', { level: 1, name: /: results$/ })).toBeVisible()
      await expectAccessible(page, 'a lab’s results')
    })

    test('the forms that add to a course and the rearrange pages', async ({ page }) => {
      const id = courseId(await openCourse(page))
      for (const [path, heading] of [
        ['/admin/newCourse', 'Add New Course'],
        [`/admin/newVideo?courseId=${id}`, 'Add New Video'],
        [`/admin/addDocuments?courseId=${id}`, 'Add Documents'],
        [`/admin/addScenarios?courseId=${id}`, 'Add Scenarios'],
        [`/admin/rearrangeCourse/${id}`, `Rearrange Course: ${COURSE}`],
        [`/admin/RearrangeDocs/${id}?type=document`, `Rearrange Documents: ${COURSE}`],
        [`/admin/RearrangeDocs/${id}?type=scenarios`, `Rearrange Scenarios: ${COURSE}`],
        [`/admin/rearrangeLabs/${id}`, `Rearrange Labs: ${COURSE}`],
      ] as const) {
        await page.goto(path)
        await expect(page.getByRole('heading', { name: heading, level: 1 })).toBeVisible()
        await whenHydrated(page)
        await expectAccessible(page, path)
      }
    })

    test('the new course, video and program forms with their errors shown', async ({ page }) => {
      for (const path of ['/admin/newCourse', '/admin/newVideo', '/admin/newProgram']) {
        await page.goto(path)
        await whenHydrated(page)
        // empty: the browser answers with the form's errors, and nothing is saved
        await page.getByRole('button', { name: 'Save' }).click()
        await expect(page.getByRole('textbox', { name: /Title|Name/ }).first()).toHaveAttribute('aria-invalid', 'true')
        await expectAccessible(page, `${path} with its errors`)
      }
    })

    test('the programs, the dashboard and the admin account pages', async ({ page }) => {
      for (const [path, heading] of [
        ['/admin/programs', 'Program List'],
        ['/admin/newProgram', 'Add New Program'],
        ['/admin/dashboard', 'Dashboard'],
        ['/admin/editProfile', 'Edit Profile'],
        ['/admin/passwordReset', 'Reset Password'],
      ] as const) {
        await page.goto(path)
        await expect(page.getByRole('heading', { name: heading, level: 1 })).toBeVisible()
        await whenHydrated(page)
        await expectAccessible(page, path)
      }
    })

    test('a program’s page with its delete and certificate settings dialogs, and its edit and rearrange pages', async ({
      page,
    }) => {
      await page.goto('/admin/programs')
      await page.getByRole('link', { name: PROGRAM }).click()
      await expect(page.getByRole('heading', { name: PROGRAM, level: 1 })).toBeVisible()
      await whenHydrated(page)
      const programPath = new URL(page.url()).pathname
      await expectAccessible(page, programPath)
      await page.getByRole('link', { name: 'Delete Program' }).click()
      await expect(page.getByRole('alertdialog', { name: 'Delete program' })).toBeVisible()
      await expectAccessible(page, `${programPath}?delete`)
      await page.keyboard.press('Escape')
      await expect(page.getByRole('alertdialog')).toHaveCount(0)
      await page.getByRole('link', { name: 'Certificate settings' }).click()
      await expect(page.getByRole('dialog', { name: 'Certificate settings' })).toBeVisible()
      await expectAccessible(page, `${programPath}?edit=certificates`)
      for (const [path, heading] of [
        [`${programPath}/edit`, 'Edit Program'],
        [`${programPath}/rearrange`, `Rearrange Program: ${PROGRAM}`],
      ] as const) {
        await page.goto(path)
        await expect(page.getByRole('heading', { name: heading, level: 1 })).toBeVisible()
        await whenHydrated(page)
        await expectAccessible(page, path)
      }
    })
  })
}
