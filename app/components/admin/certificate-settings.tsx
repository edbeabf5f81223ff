import { Link } from '@remix-run/react'
import { FormCheckbox, FormField, FormFileField } from '#app/components/forms/fields.tsx'
import { useZodForm } from '#app/components/forms/use-zod-form.ts'
import { type FileInfo, type UploadRules } from '#app/components/ui/file-upload.tsx'
import { Overlay } from '#app/components/ui/overlay.tsx'
import { Toggle } from '#app/components/ui/toggle.tsx'
import { CertificateSettingsFormSchema } from '#app/modules/certificates/settings.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { DialogForm, useLastResult, withoutEmptyFiles } from './course-dialogs.tsx'

// The Certificates panel of a course's or program's admin page (on or off, the issuer, how many were
// given, a link to them) and its Certificate settings dialog, posted to the page with `?intent=certificates`.

type Kind = 'course' | 'program'

/** What the panel and the dialog show (certificateSettings in certificates/settings.server.ts). */
type Settings = {
  certificates: boolean
  issuer: string
  signature: FileInfo | null
  issued: { valid: number; revoked: number }
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`

export function CertificatesPanel({
  kind,
  subjectId,
  settings,
  settingsTo,
}: {
  kind: Kind
  subjectId: string
  settings: Settings
  /** where the settings dialog opens; none for those who may not change them */
  settingsTo?: string
}) {
  const { valid, revoked } = settings.issued
  return (
    <section className="card mt-6 p-4" aria-labelledby="certificates-heading" data-testid="certificates-panel">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 id="certificates-heading" className="text-lg font-semibold">
          Certificates
        </h2>
        {settingsTo ? (
          <Link to={settingsTo} preventScrollReset className="btn-secondary py-1">
            Certificate settings
          </Link>
        ) : null}
      </div>
      <p className="mt-2 break-words text-sm text-slate-700">
        {settings.certificates ? (
          <>
            <span className="font-medium text-emerald-800">On</span>: learners who complete this {kind} get a
            certificate issued by {settings.issuer}
            {settings.signature ? ', with a signature' : ''}.
          </>
        ) : (
          <>
            <span className="font-medium text-slate-900">Off</span>: learners who complete this {kind} get no
            certificate.
          </>
        )}
      </p>
      <p className="mt-1 flex flex-wrap gap-x-3 text-sm text-slate-700">
        <span>
          Issued: {plural(valid, 'valid certificate')}, {revoked} revoked
        </span>
        <Link to={`/admin/certificates?${kind}=${subjectId}`} className="text-brand-700 underline">
          View certificates
        </Link>
      </p>
    </section>
  )
}

export function CertificateSettingsDialog({
  kind,
  settings,
  closeTo,
  upload,
  mayIssue,
}: {
  kind: Kind
  settings: Settings
  closeTo: string
  /** the signature picker's accept and hint (uploadRules('certificateSignature')) */
  upload: UploadRules
  /** may queue certificates for learners who already completed (manage:certificates) */
  mayIssue: boolean
}) {
  const [form, fields] = useZodForm(CertificateSettingsFormSchema, {
    id: 'certificate-settings',
    lastResult: useLastResult('certificates'),
    defaultValue: {
      certificates: settings.certificates ? 'true' : 'false',
      // the portal's name until an admin names another issuer
      certificateIssuer: settings.issuer || PRODUCT_NAME,
      certificateSignature: settings.signature ? JSON.stringify(settings.signature) : '',
    },
    prepare: withoutEmptyFiles,
  })
  const on = (fields.certificates.initialValue ?? (settings.certificates ? 'true' : 'false')) === 'true'
  return (
    <Overlay
      title="Certificate settings"
      description={`What learners who complete this ${kind} are given. The issuer’s name is stated on each certificate as it is issued; the signature is drawn on every certificate’s PDF.`}
      closeTo={closeTo}
    >
      <DialogForm form={form} intent="certificates" multipart closeTo={closeTo}>
        <div className="pb-4">
          <Toggle name="certificates" label="Certificates" onLabel="On" offLabel="Off" defaultChecked={on} />
        </div>
        <FormField meta={fields.certificateIssuer} label="Issuer’s name" maxLength={200} autoComplete="organization" />
        <FormFileField
          meta={fields.certificateSignature}
          label="Signature image (optional)"
          kind="signature"
          upload={upload}
          hint={`${upload.hint}; a transparent PNG looks best${settings.signature ? '; leave it to keep the current one' : ''}`}
          defaultFileInfo={settings.signature}
        />
        {settings.signature ? (
          <FormCheckbox
            meta={fields.removeCertificateSignature}
            label="Remove the current signature (a new image chosen above replaces it instead)"
          />
        ) : null}
        {mayIssue ? (
          <FormCheckbox
            meta={fields.issueToCompleted}
            label={`Also issue certificates to learners who already completed this ${kind}`}
          />
        ) : null}
      </DialogForm>
    </Overlay>
  )
}
