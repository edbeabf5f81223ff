import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { simpleParser } from 'mailparser'
import { SMTPServer } from 'smtp-server'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { sendContactMessage } from '#app/modules/contact/service.server.ts'
import { resetMailTransport, sendMail } from '#app/modules/mail/service.server.ts'
import { getEnv, resetEnvCache } from '#app/utils/env.server.ts'
import { makeAdmin, makeSuperAdmin } from '#tests/factories.ts'
import { parsePage } from '#tests/render.tsx'
import { freePort } from '#tests/setup/global.ts'

// Real mail: the .eml outbox when SMTP_URL is unset, and a real SMTP server on loopback when it is set.

type Received = { from: string; to: string[]; raw: string }
const received: Received[] = []
let smtp: SMTPServer
let port: number

beforeAll(async () => {
  port = await freePort()
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, callback) {
      let raw = ''
      stream.on('data', (chunk: Buffer) => (raw += chunk.toString()))
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
        })
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => smtp.listen(port, '127.0.0.1', resolve))
})

afterAll(async () => {
  await new Promise<void>((resolve) => smtp.close(() => resolve()))
  delete process.env.SMTP_URL
  resetEnvCache()
  resetMailTransport()
})

beforeEach(() => {
  received.length = 0
})

function useSmtp(on: boolean) {
  if (on) process.env.SMTP_URL = `smtp://127.0.0.1:${port}`
  else delete process.env.SMTP_URL
  resetEnvCache()
  resetMailTransport()
}

const mail = {
  to: 'reader@example.com',
  subject: 'Hello',
  text: 'Plain words https://portal.test/x',
  html: '<p>Rich words</p>',
}

describe('sendMail', () => {
  it('writes an .eml file to the outbox when no SMTP server is set', async () => {
    useSmtp(false)
    const sent = await sendMail(mail)
    expect(sent.file).toBeDefined()
    const outbox = path.join(getEnv().DATA_DIR, 'outbox')
    expect(await readdir(outbox)).toContain(path.basename(sent.file as string))
    const parsed = await simpleParser(await readFile(sent.file as string))
    expect(parsed.subject).toBe('Hello')
    expect(parsed.text?.trim()).toBe('Plain words https://portal.test/x')
    // the HTML part as a mail reader shows it: a paragraph, not its tags as text
    expect(parsePage(parsed.html || '').getByText('Rich words').tagName).toBe('P')
  })

  it('sends through the SMTP server when SMTP_URL is set', async () => {
    useSmtp(true)
    const sent = await sendMail(mail)
    expect(sent.file).toBeUndefined()
    expect(received).toHaveLength(1)
    expect(received[0].to).toEqual(['reader@example.com'])
    const parsed = await simpleParser(received[0].raw)
    expect(parsed.subject).toBe('Hello')
    expect(parsePage(parsed.html || '').getByText('Rich words').tagName).toBe('P')
  })
})

describe('the contact form', () => {
  it('mails the admins with the sender as Reply-To, escaping what was typed', async () => {
    useSmtp(true)
    const [admin, superAdmin] = [await makeAdmin(), await makeSuperAdmin()]
    const result = await sendContactMessage(
      {
        name: 'Curious Carla',
        email: 'carla@example.com',
        subject: 'Group training',
        message: 'Do you train <teams>?',
      },
      { address: '10.0.0.1' },
    )
    expect(result).toEqual({ delivered: true })
    expect(received).toHaveLength(1)
    expect(received[0].to.sort()).toEqual([admin.email, superAdmin.email].sort())
    const parsed = await simpleParser(received[0].raw)
    expect(parsed.replyTo?.text).toContain('carla@example.com')
    expect(parsed.subject).toBe('Contact form: Group training')
    // what the visitor typed reads as text in the HTML part, never as markup
    expect(parsePage(parsed.html || '').getByText('Do you train <teams>?')).toBeInTheDocument()
    expect(parsed.text).toContain('Do you train <teams>?')
  })

  it('sends nothing for a robot, and throttles a flood from one address', async () => {
    useSmtp(true)
    await makeAdmin()
    const message = { name: 'Bot', email: 'bot@example.com', subject: 'Buy', message: 'Spam', website: 'http://spam' }
    expect(await sendContactMessage(message, { address: '10.0.0.2' })).toEqual({ delivered: false })
    expect(received).toHaveLength(0)
    const human = { name: 'Hank', email: 'hank@example.com', subject: 'Hi', message: 'Hello' }
    for (let i = 0; i < 5; i++) await sendContactMessage(human, { address: '10.0.0.3' })
    await expect(sendContactMessage(human, { address: '10.0.0.3' })).rejects.toMatchObject({ status: 429 })
    expect(received).toHaveLength(5)
  })

  it('answers each missing field', async () => {
    await expect(
      sendContactMessage({ name: '', email: 'x', subject: '', message: '' }, { address: '10.0.0.4' }),
    ).rejects.toMatchObject({
      issues: expect.arrayContaining([
        expect.objectContaining({ path: ['name'], message: 'Name is required field.' }),
        expect.objectContaining({ path: ['email'], message: 'Email is invalid.' }),
        expect.objectContaining({ path: ['subject'], message: 'Subject is required field.' }),
        expect.objectContaining({ path: ['message'], message: 'Message is required field.' }),
      ]),
    })
  })
})
