import { readFile } from 'node:fs/promises'
import { type Page } from '@playwright/test'
import { parse } from 'csv-parse/sync'
import { DEMO_PASSWORD } from '../../db/seeds/demo-content.ts'
import { expect, test } from './fixtures.ts'
import { expectAccessible, portal, signIn } from './helpers.ts'

const count = (page: Page, label: string) => page.getByTestId('count-card').filter({ hasText: label })

test('an admin lands on the dashboard and sees the three counts', async ({ page, signInAs }) => {
  await signInAs('admin')
  await expect(page).toHaveURL(/\/admin\/dashboard$/)
  await expect(count(page, 'Total Courses')).toContainText('4')
  await expect(count(page, 'Total Admins')).toContainText('2')
  await expect(count(page, 'Total Courses')).toHaveAttribute('href', '/admin/courses')
  await expect(count(page, 'Total Users')).toHaveAttribute('href', '/admin/users')
  await expect(count(page, 'Total Admins')).toHaveAttribute('href', '/admin/adminUsers')
  await expect(page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Access Log' })).toBeVisible()
})

test('a coach signs in to the admin side too', async ({ page }) => {
  await signIn(page, 'coach@example.com', DEMO_PASSWORD)
  await expect(page).toHaveURL(/\/admin\/dashboard$/)
  await expect(page.getByText('Coach', { exact: true })).toBeVisible()
})

test('a user made with the CLI while the app runs can sign in at once, and the count follows', async ({
  page,
  signInAs,
}) => {
  await signInAs('superadmin')
  const before = Number(await count(page, 'Total Users').locator('p').nth(1).textContent())

  const { stdout } = await portal(
    'users',
    'create',
    '--role',
    'learner',
    '--email',
    'cli.learner@example.com',
    '--password',
    'Cli-learner1!',
    '--first-name',
    'Clara',
    '--last-name',
    'Ingram',
    '--username',
    'clilearner',
  )
  expect(stdout).toContain('Created learner clilearner')

  await page.reload()
  await expect(count(page, 'Total Users')).toContainText(String(before + 1))

  await page.context().clearCookies()
  await signIn(page, 'clilearner', 'Cli-learner1!')
  await expect(page).toHaveURL(/\/courses$/)
  await expect(page.getByText('No Courses Assigned')).toBeVisible()
})

test('the CLI refuses a duplicate and a missing option with clear messages', async () => {
  await expect(
    portal(
      'users',
      'create',
      '--role',
      'learner',
      '--email',
      'LEARNER1@example.com',
      '--password',
      'Str0ng!pass',
      '--first-name',
      'Dupli',
      '--last-name',
      'Cate',
      '--username',
      'someoneelse',
    ),
  ).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('Email already exists.') })
  await expect(portal('users', 'create', '--role', 'learner')).rejects.toMatchObject({
    code: 2,
    stderr: expect.stringContaining('missing --email'),
  })
})

test('the access log shows who watched what, filtered by course and dates', async ({ page, signInAs }) => {
  await signInAs('coach')
  await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Access Log' }).click()
  await expect(page.getByRole('heading', { name: 'Access Log' })).toBeVisible()
  const table = page.getByRole('table', { name: 'Access Log' })
  await expect(table.getByRole('row').filter({ hasText: 'learner1@example.com' }).first()).toBeVisible()
  await expect(table.getByRole('columnheader')).toHaveText([
    'First Name',
    'Email ID',
    'Course Name',
    'Video title',
    'Video Duration',
    'Video Progress',
    'Last Viewed',
  ])
  await expect(
    table
      .getByRole('cell')
      .filter({ hasText: /^\d{2}\/\d{2}\/\d{4}$/ })
      .first(),
  ).toBeVisible()
  await expectAccessible(page, 'the access log')

  // a filter keeps the rows per page the admin chose; two courses are picked from the keyboard
  await page.getByLabel('Rows per page').selectOption('14')
  await expect(page).toHaveURL(/size=14/)
  const picker = page.getByRole('button', { name: /^Courses/ })
  await picker.focus()
  // Space or an arrow opens the list (Enter submits the form, as in a native select); Enter picks in it
  await page.keyboard.press('ArrowDown')
  const list = page.getByRole('listbox')
  await expect(list).toBeVisible()
  const titles = await list.getByRole('option').allTextContents()
  for (const title of ['Data Modelling for Relational Databases', 'SQL Fundamentals']) {
    await page.keyboard.press('Home')
    for (let i = 0; i < titles.indexOf(title); i++) await page.keyboard.press('ArrowDown')
    await page.keyboard.press('Enter')
    await expect(list.getByRole('option', { name: title })).toHaveAttribute('aria-selected', 'true')
  }
  await expectAccessible(page, 'the access log’s open course list')
  await page.keyboard.press('Escape')
  await expect(list).toBeHidden()
  await expect(picker).toBeFocused()
  await expect(picker).toContainText('2 courses')
  await page.getByRole('button', { name: 'Filter' }).click()
  await expect(page).toHaveURL(/course=.*&course=/)
  await expect(page).toHaveURL(/size=14/)
  await expect(page.getByLabel('Rows per page')).toHaveValue('14')
  await expect(picker).toContainText('2 courses')
  const courses = await table.getByRole('row').locator('td:nth-child(3)').allTextContents()
  expect(courses.length).toBeGreaterThan(0)
  expect(['Data Modelling for Relational Databases', 'SQL Fundamentals']).toEqual(
    expect.arrayContaining([...new Set(courses)]),
  )
  await page.getByLabel('Start date').fill('2020-01-01')
  await page.getByLabel('End date').fill('2020-01-02')
  await page.getByRole('button', { name: 'Filter' }).click()
  await expect(table.getByText('No Data Found')).toBeVisible()
  await page.getByRole('link', { name: 'Clear Filter' }).click()
  await expect(page).toHaveURL(/\/admin\/accesslog$/)
  // the form and the table are the unfiltered log again, as the URL says
  await expect(page.getByLabel('Start date')).toHaveValue('')
  await expect(page.getByLabel('End date')).toHaveValue('')
  await expect(picker).toContainText('Every course')
  await expect(table.getByText('No Data Found')).toHaveCount(0)
  await expect(table.locator('tbody tr').first()).toBeVisible()
})

test('an admin exports exactly the rows of the access log’s filter as a CSV file', async ({ page, signInAs }) => {
  await signInAs('admin')
  await page.goto('/admin/accesslog')
  await page.getByRole('button', { name: /^Courses/ }).click()
  await page.getByRole('option', { name: 'Data Modelling for Relational Databases' }).click()
  await page.keyboard.press('Escape')
  await page.getByLabel('Start date').fill('2000-01-01')
  await page.getByLabel('End date').fill('2099-12-31')
  await page.getByRole('button', { name: 'Filter' }).click()
  await expect(page).toHaveURL(/startDate=2000-01-01/)
  // the router changes the URL before React shows the filtered rows: wait for the page drawn from the filter
  await expect(page.getByRole('link', { name: /^Export CSV/ })).toHaveAttribute('href', /startDate=2000-01-01/)

  // every row the filter shows, page after page, each page read at once
  const table = page.getByRole('table', { name: 'Access Log' })
  const pages = page.getByRole('navigation', { name: 'Access Log pages' })
  const shown: string[][] = []
  for (let n = 2; ; n++) {
    const rows = await table
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(1, 4).map((c) => c.textContent ?? '')))
    shown.push(...rows)
    const next = pages.locator('a[rel="next"]')
    if ((await next.count()) === 0) break
    await next.click()
    await expect(pages).toContainText(`Page ${n} of`)
  }
  expect(shown.length).toBeGreaterThan(0)

  const downloading = page.waitForEvent('download')
  await page.getByRole('link', { name: /^Export CSV/ }).click()
  const download = await downloading
  expect(download.suggestedFilename()).toBe('access-log-2000-01-01-2099-12-31.csv')
  const records = parse(await readFile(await download.path(), 'utf8'), { columns: true }) as Record<string, string>[]
  expect(records.map((r) => [r['Email ID'], r['Course Name'], r['Video title']])).toEqual(shown)
  expect(new Set(records.map((r) => r['Course Name']))).toEqual(new Set(['Data Modelling for Relational Databases']))
})

test('the dashboard shows the demo’s viewing: active learners, a drawn chart with its table, completion, top videos', async ({
  signInAs,
  page,
}) => {
  await signInAs('admin')
  await expect(page).toHaveURL(/\/admin\/dashboard$/)
  // learner 1 watched videos over the last days (and learners signed in by other tests opened pages)
  await expect(page.getByTestId('active-card').filter({ hasText: 'last 7 days' })).toHaveText(/days[1-9]\d*$/)
  await expect(page.getByTestId('active-card').filter({ hasText: 'last 30 days' })).toHaveText(/days[1-9]\d*$/)

  const chart = page.getByTestId('views-chart')
  await expect(chart).toHaveAttribute('data-drawn', 'true')
  const box = await chart.locator('canvas').boundingBox()
  expect(box?.width).toBeGreaterThan(200)
  expect(box?.height).toBeGreaterThan(100)
  // bars were painted: some pixel of the canvas is the bars' blue
  const painted = await chart.locator('canvas').evaluate((canvas: HTMLCanvasElement) => {
    const { data } = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height)
    for (let i = 0; i < data.length; i += 4)
      if (data[i] === 0x2f && data[i + 1] === 0x6f && data[i + 2] === 0xdf) return true
    return false
  })
  expect(painted).toBe(true)
  await expect(chart.locator('canvas')).toHaveAttribute('aria-label', /8 video views in the last 30 days/)

  await page.getByText('Show as table').click()
  const table = page.getByRole('table', { name: 'Video views per day, last 30 days' })
  await expect(table.locator('tbody tr')).toHaveCount(30)
  await expect(table.locator('tbody td').filter({ hasText: /^1$/ })).toHaveCount(8)

  const completion = page.getByTestId('completion')
  await expect(completion.locator('li').filter({ hasText: 'SQL Fundamentals' })).toContainText('of 2')
  await expect(completion.locator('li').filter({ hasText: 'Building ETL Pipelines' })).toContainText(
    'No learners assigned',
  )
  await expect(page.getByTestId('top-videos').locator('li')).toHaveCount(5)
  await expect(page.getByTestId('top-videos')).toContainText('1 view')
  // the demo's three labs, each with its course's learners, those who tried it and those who completed it
  const passRates = page.getByRole('table', { name: /Lab pass rates/ })
  await expect(passRates.locator('tbody tr')).toHaveCount(3)
  await expect(passRates.locator('tbody tr').filter({ hasText: 'SQL Fundamentals' }).locator('td')).toHaveText([
    '2',
    /^\d+$/,
    /^\d+\s*\d+%$/,
  ])
  await expectAccessible(page, '/admin/dashboard')

  // on a 360 px phone nothing runs off the side, and the chart still draws; the pass rates fit their card
  await page.setViewportSize({ width: 360, height: 740 })
  await page.reload()
  await expect(chart).toHaveAttribute('data-drawn', 'true')
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360)
  expect(await passRates.evaluate((table) => table.scrollWidth <= table.parentElement!.clientWidth)).toBe(true)
})

test('a learner’s pages never load the charting code', async ({ page, signInAs }) => {
  const scripts: string[] = []
  page.on('request', (request) => {
    if (request.resourceType() === 'script') scripts.push(request.url())
  })
  await signInAs('learner1')
  await expect(page).toHaveURL(/\/courses$/)
  await page.getByRole('link', { name: 'Start Course' }).first().click()
  await expect(page).toHaveURL(/\/course\//)
  expect(scripts.length).toBeGreaterThan(0)
  expect(scripts.filter((url) => /bar-chart|chart/i.test(url))).toEqual([])
})
