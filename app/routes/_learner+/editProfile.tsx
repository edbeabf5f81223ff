import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { useActionData, useLoaderData } from '@remix-run/react'
import { LogOutEverywhere } from '#app/components/account/log-out-everywhere.tsx'
import { ProfileForm } from '#app/components/account/profile-form.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { type FormReply, pageAction } from '#app/utils/forms.server.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { profileAction, profileLoader } from './__account.server.ts'

export const meta: MetaFunction = () => [{ title: `Edit Profile · ${PRODUCT_NAME}` }]

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, ({ request }) => profileLoader(request))
export const action = (args: ActionFunctionArgs) => pageAction(args, ({ request }) => profileAction(request))

export default function EditProfile() {
  const { profile, timeZones, remindersSwitch } = useLoaderData<typeof loader>()
  const actionData = useActionData<FormReply>()
  return (
    <>
      <ProfileForm
        profile={profile}
        timeZones={timeZones}
        remindersSwitch={remindersSwitch}
        lastResult={actionData?.result}
      />
      <LogOutEverywhere />
    </>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
