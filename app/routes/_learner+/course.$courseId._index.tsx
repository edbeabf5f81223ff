import { getFormProps, useForm } from '@conform-to/react'
import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation, useSearchParams } from '@remix-run/react'
import { ContentsHeading, CourseLayout } from '#app/components/course/course-layout.tsx'
import { DueWords } from '#app/components/course/due-words.tsx'
import { ProgressBar } from '#app/components/course/progress-bar.tsx'
import { FileList, VideoList } from '#app/components/course/video-list.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { FormFileField, FormSelectField, UploadsScope, useUploads } from '#app/components/forms/fields.tsx'
import { type UploadRules } from '#app/components/ui/file-upload.tsx'
import { FormError } from '#app/components/ui/form-footer.tsx'
import { Overlay, OVERLAY_TITLE_ID } from '#app/components/ui/overlay.tsx'
import { listAssessments, uploadAssessment } from '#app/modules/assessments/service.server.ts'
import { courseDue } from '#app/modules/courses/learner.server.ts'
import { uploadRules } from '#app/modules/files/types.server.ts'
import { listCourseLabs } from '#app/modules/labs/service.server.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { formatDate } from '#app/utils/format.ts'
import { pageAction, type FormReply, submitUploadForm } from '#app/utils/forms.server.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requireUser } from '#app/utils/session.server.ts'
import { redirectWithSuccess } from '#app/utils/toast.server.ts'
import { COURSE_REFUSALS, loadCourse, parseAssessmentForm } from './__course.server.ts'

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `${data?.course.title ?? 'Course'} · ${PRODUCT_NAME}` },
]

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage, { redirects: COURSE_REFUSALS })

async function loadPage({ request, params }: LoaderFunctionArgs) {
  const { user, course } = await loadCourse(request, params.courseId ?? '')
  const assessments = await listAssessments(user, { courseId: course._id, userId: user.id })
  const labs = (await listCourseLabs(user, course._id)).map((lab) => ({
    id: lab.id,
    title: lab.title,
    minutes: lab.minutes,
    exercises: lab.exercises.length,
    passed: lab.exercises.filter((e) => e.passed).length,
  }))
  return json({
    course,
    labs,
    assessments,
    upload: uploadRules('assessment'),
    due: await courseDue(user, course._id),
    // the moment the due words are read at, the same on the server and in the browser
    now: new Date().toISOString(),
  })
}

/**
 * My Assessment: the file comes with the form (no JavaScript) or was uploaded the moment
 * it was chosen; Submit registers it against a scenario, then the dialog closes and the list shows it.
 */
export const action = (args: ActionFunctionArgs) => pageAction(args, runAction)

async function runAction({ request, params }: ActionFunctionArgs) {
  const user = await requireUser(request)
  const courseId = params.courseId ?? ''
  const saved = await submitUploadForm(request, {
    upload: { kind: 'assessment', fileField: 'courseDocument', actor: user },
    field: 'document',
    parse: parseAssessmentForm,
    fixed: { courseId },
    run: (value) => uploadAssessment(user, value),
  })
  if (!saved.ok) return saved.response
  return redirectWithSuccess(`/course/${courseId}`, 'Assessment submitted.')
}

export default function CoursePage() {
  const { course, labs, assessments, upload, due, now } = useLoaderData<typeof loader>()
  const [params] = useSearchParams()
  const next = course.videos.find((v) => !v.completed && v.lockedBy.length === 0) ?? course.videos[0]
  const uploading = params.get('assessment') === 'new'
  return (
    <CourseLayout
      back={{ label: 'My Courses', to: '/courses' }}
      course={course}
      aside={
        <div className="space-y-4 p-5">
          {due ? <DueWords due={due.due} completed={due.completed} program={due.dueProgram} now={now} /> : null}
          <ProgressBar percent={course.percent} label="Course progress" />
          {next ? (
            <Link to={`/course/${course._id}/${next._id}`} className="btn-primary w-full">
              {course.percent > 0 ? 'Continue' : 'Start Course'}
            </Link>
          ) : null}
        </div>
      }
    >
      <section className="card" aria-labelledby="contents-heading">
        <details open>
          <summary className="flex w-full cursor-pointer list-none items-center justify-between px-4 py-3 text-left [&::-webkit-details-marker]:hidden">
            <ContentsHeading course={course} />
          </summary>
          <div className="border-t border-slate-100">
            <VideoList courseId={course._id} videos={course.videos} />
          </div>
        </details>
      </section>
      {labs.length > 0 ? <LabList courseId={course._id} labs={labs} /> : null}
      {[
        { id: 'documents', title: 'Documents', items: course.documents },
        { id: 'scenarios', title: 'Scenarios', items: course.scenarios },
      ].map(({ id, title, items }) => (
        <section key={id} className="card" aria-labelledby={`${id}-heading`}>
          <h2 id={`${id}-heading`} className="border-b border-slate-100 px-4 py-3 font-semibold">
            {title}
          </h2>
          <FileList items={items} empty={`No ${title} found`} />
        </section>
      ))}
      <section className="card" aria-labelledby="assessment-heading">
        <div className="flex items-center justify-between border-b border-slate-100 px-4 py-3">
          <h2 id="assessment-heading" className="font-semibold">
            My Assessment
          </h2>
          {course.scenarios.length ? (
            <Link to="?assessment=new" preventScrollReset className="btn-primary py-1.5">
              Upload Assessment
            </Link>
          ) : null}
        </div>
        {assessments.length === 0 ? (
          <p className="p-4 text-sm text-slate-600">
            No Assignment found
            {course.scenarios.length ? '' : ' (this course has no scenario to answer yet)'}
          </p>
        ) : (
          <ol className="divide-y divide-slate-100" aria-label="My assessments">
            {assessments.map((a) => (
              <li key={a._id} className="flex flex-wrap items-center gap-3 px-4 py-3 text-sm">
                <a
                  href={a.document.link}
                  className="font-medium text-brand-700 hover:underline"
                  target="_blank"
                  rel="noreferrer"
                >
                  {a.document.name}
                </a>
                <span className="text-slate-500">for {a.scenarioName}</span>
                <span className="ml-auto text-xs text-slate-500">
                  <time dateTime={a.createdAt}>{formatDate(a.createdAt)}</time>
                </span>
              </li>
            ))}
          </ol>
        )}
      </section>
      {uploading && course.scenarios.length ? <AssessmentDialog scenarios={course.scenarios} upload={upload} /> : null}
    </CourseLayout>
  )
}

/** The course's SQL labs, each with its length and how many of its exercises the learner has passed. */
function LabList({
  courseId,
  labs,
}: {
  courseId: string
  labs: { id: string; title: string; minutes: number; exercises: number; passed: number }[]
}) {
  return (
    <section className="card" aria-labelledby="labs-heading">
      <h2 id="labs-heading" className="border-b border-slate-100 px-4 py-3 font-semibold">
        SQL Labs
      </h2>
      <ol className="divide-y divide-slate-100">
        {labs.map((lab, index) => (
          <li key={lab.id}>
            <Link
              to={`/course/${courseId}/lab/${lab.id}`}
              className="flex flex-wrap items-center gap-x-3 gap-y-1 px-4 py-3 text-sm text-slate-800 hover:bg-slate-50"
            >
              <span className="w-6 text-right tabular-nums text-slate-600">{index + 1}.</span>
              <span className="flex-1 font-medium text-brand-700">{lab.title}</span>
              <span className="tabular-nums text-slate-600">{lab.minutes} min</span>
              <span className="tabular-nums text-slate-600">
                {lab.passed} of {lab.exercises} passed
              </span>
            </Link>
          </li>
        ))}
      </ol>
    </section>
  )
}

function AssessmentDialog({ scenarios, upload }: { scenarios: { _id: string; name: string }[]; upload: UploadRules }) {
  const actionData = useActionData<FormReply>()
  const navigation = useNavigation()
  const { uploading, report } = useUploads()
  // Validated by the action only (its reply puts each message beside its field, with or without
  // JavaScript): client-side validation would bring zod to every course page (ADR 021).
  const [form, fields] = useForm({ id: 'assessment', lastResult: actionData?.result })
  const submitting = navigation.state === 'submitting'
  return (
    <Overlay title="Upload Assessment" description="Choose your file, then the scenario it answers." closeTo="?">
      <Form
        method="post"
        action="?assessment=new"
        encType="multipart/form-data"
        preventScrollReset
        aria-labelledby={OVERLAY_TITLE_ID}
        className="space-y-1"
        {...getFormProps(form)}
      >
        <UploadsScope report={report}>
          <FormFileField meta={fields.document} label="Your document" kind="document" upload={upload} />
        </UploadsScope>
        <FormSelectField
          meta={fields.relatedScenarioId}
          label="Scenario"
          placeholder="Choose a scenario"
          options={scenarios.map((s) => ({ value: s._id, label: s.name }))}
        />
        <FormError id={form.errorId} errors={form.errors} />
        <div className="flex justify-end gap-3">
          <a href="?" className="btn-secondary">
            Cancel
          </a>
          <button type="submit" className="btn-primary" disabled={uploading || submitting}>
            {submitting ? 'Submitting…' : 'Submit'}
          </button>
        </div>
      </Form>
    </Overlay>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
