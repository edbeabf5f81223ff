// LinkedIn's "add a certification to your profile" link, filled in: the learner confirms it on LinkedIn.

type Shown = { title: string; issuerName: string; issuedAt: string; verifyUrl: string; code: string }

export function linkedInAddUrl(c: Shown): string {
  const issued = new Date(c.issuedAt)
  const query = new URLSearchParams({
    startTask: 'CERTIFICATION_NAME',
    name: c.title,
    organizationName: c.issuerName,
    issueYear: String(issued.getUTCFullYear()),
    issueMonth: String(issued.getUTCMonth() + 1),
    certUrl: c.verifyUrl,
    certId: c.code,
  })
  return `https://www.linkedin.com/profile/add?${query}`
}
