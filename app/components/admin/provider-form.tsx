import { type FieldMetadata } from '@conform-to/react'
import { FormCheckbox, FormField, FormPasswordField, FormTextareaField } from '#app/components/forms/fields.tsx'
import { providerAddresses, RULE_FORMAT } from '#app/modules/sso/provider-form.ts'

// The parts the Company sign-in pages share: an identity provider's fields (the add form and the edit form, which
// has no short name and keeps the client secret when it is left empty), and the addresses to register at the
// provider for a short name.

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a field of either provider form
type Meta = FieldMetadata<any, any, string[]>

type Fields = Record<
  | 'name'
  | 'issuer'
  | 'clientId'
  | 'clientSecret'
  | 'scopes'
  | 'domains'
  | 'required'
  | 'createAccounts'
  | 'accountGroups'
  | 'groupsClaim'
  | 'rules',
  Meta
>

/**
 * The provider's fields after its short name, in a two-column grid on a wide screen. `keptSecret`: on the edit
 * form, whether the client secret kept can still be read (the field may then stay empty).
 */
export function ProviderFields({ fields, keptSecret }: { fields: Fields; keptSecret?: { readable: boolean } }) {
  return (
    <>
      <FormField
        meta={fields.name}
        label="Display name"
        hint="On the sign-in page’s button: Sign in with this name."
        autoComplete="off"
      />
      <FormField
        meta={fields.issuer}
        label="Issuer URL"
        type="url"
        hint="From the provider, such as https://login.microsoftonline.com/<tenant>/v2.0."
        autoComplete="off"
      />
      <FormField meta={fields.clientId} label="Client ID" hint="The portal’s ID at the provider." autoComplete="off" />
      <div>
        <FormPasswordField
          meta={fields.clientSecret}
          label="Client secret"
          autoComplete="new-password"
          hint={
            keptSecret
              ? 'Leave it empty to keep the current secret. It is never shown again once saved.'
              : 'Sealed when saved and never shown again.'
          }
        />
        {keptSecret && !keptSecret.readable ? (
          <p className="mb-2 rounded-md bg-amber-50 p-2 text-sm text-amber-900" role="note">
            The current secret cannot be read (the key that seals secrets changed): sign-in through this provider fails
            until the secret is typed again here.
          </p>
        ) : null}
      </div>
      <FormField
        meta={fields.scopes}
        label="Scopes"
        hint="Apart by spaces; openid is needed. Empty for openid email profile."
        autoComplete="off"
        spellCheck={false}
      />
      <FormField
        meta={fields.domains}
        label="Email domains"
        hint="The domains whose people sign in here, apart by commas or spaces, such as acme.com, acme.co.uk."
        autoComplete="off"
        spellCheck={false}
      />
      <div className="sm:col-span-2">
        <FormCheckbox
          meta={fields.required}
          label="Require this provider for its domains (turns off passwords for those accounts)"
        />
        <FormCheckbox meta={fields.createAccounts} label="Create accounts for people who have none (as learners)" />
      </div>
      <FormField
        meta={fields.accountGroups}
        label="Account groups"
        hint="When accounts are created: only members of these groups get one, apart by commas. Empty for anyone."
        autoComplete="off"
      />
      <FormField
        meta={fields.groupsClaim}
        label="Groups claim"
        hint="The ID token’s claim listing the person’s groups. Empty for groups."
        autoComplete="off"
        spellCheck={false}
      />
      <div className="sm:col-span-2">
        <FormTextareaField
          meta={fields.rules}
          label="Group rules"
          hint={`One a line: ${RULE_FORMAT} (the exact title, or the id). Members of the group are assigned it.`}
          rows={5}
          spellCheck={false}
          placeholder={'engineers = program: Onboarding\nsales = course: CRM Basics'}
          everyError
        />
      </div>
    </>
  )
}

/** What to register at the provider for the short name `slug` (a placeholder until one is typed). */
export function ProviderAddresses({ publicUrl, slug }: { publicUrl: string; slug: string }) {
  const addresses = providerAddresses(publicUrl, slug || '<short name>')
  const items: [string, string, string][] = [
    ['Redirect URI', addresses.redirect, 'also called the sign-in redirect or callback URL'],
    ['Back-channel logout URI', addresses.backchannelLogout, 'where the provider supports it'],
    ['Post-logout redirect URI', addresses.postLogout, 'the sign-out redirect'],
  ]
  return (
    <section aria-labelledby="register-heading" className="card p-4 text-sm">
      <h3 id="register-heading" className="font-semibold">
        What to register at the provider
      </h3>
      <p className="mt-1 text-slate-600">
        Register the portal there as a web application (a confidential client with a secret, the authorization code
        flow) with these addresses, then copy the provider’s issuer URL, client ID and client secret here.
      </p>
      <dl className="mt-3 space-y-3">
        {items.map(([label, address, note]) => (
          <div key={label}>
            <dt className="font-medium text-slate-700">
              {label} <span className="font-normal text-slate-500">({note})</span>
            </dt>
            <dd className="mt-0.5 break-all">
              <code>{address}</code>
            </dd>
          </div>
        ))}
      </dl>
    </section>
  )
}
