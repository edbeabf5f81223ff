import { parseWithZod } from '@conform-to/zod'
import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Link, useLoaderData, useSearchParams } from '@remix-run/react'
import { CertificateSettingsDialog, CertificatesPanel } from '#app/components/admin/certificate-settings.tsx'
import {
  DeleteEntryDialog,
  EditCourseDialog,
  EditDocumentDialog,
  EditVideoDialog,
  ViewDocumentDialog,
} from '#app/components/admin/course-dialogs.tsx'
import { DeleteLabDialog, LabsTab, type AddLabReply } from '#app/components/admin/course-labs.tsx'
import { RemindersPanel } from '#app/components/admin/reminder-switch.tsx'
import { CourseImage } from '#app/components/course/course-image.tsx'
import { EmbeddedVideo } from '#app/components/course/embedded-video.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { Breadcrumb } from '#app/components/ui/breadcrumb.tsx'
import { EmptyState } from '#app/components/ui/empty-state.tsx'
import { can } from '#app/modules/auth/permissions.ts'
import { certificateSettings, editCertificateSettings } from '#app/modules/certificates/settings.server.ts'
import { CertificateSettingsFormSchema, certificatesSavedMessage } from '#app/modules/certificates/settings.ts'
import { kindOf, type DocumentDto, type VideoDto } from '#app/modules/content/dto.ts'
import { documentMessage, videoDeletedMessage } from '#app/modules/content/messages.ts'
import { EditDocumentFormSchema, EditVideoSchema } from '#app/modules/content/schema.ts'
import { deleteDocument, deleteVideo, editDocument, editVideo } from '#app/modules/content/service.server.ts'
import { editCourseDetails, getCourseDetail, setCourseReminders } from '#app/modules/courses/admin.server.ts'
import { EditCourseSchema } from '#app/modules/courses/schema.ts'
import { remindersSavedMessage } from '#app/modules/deadlines/settings-form.ts'
import { invalid } from '#app/modules/errors.ts'
import { uploadRules } from '#app/modules/files/types.server.ts'
import {
  courseLabs,
  deleteLab,
  receiveLabZip,
  setLabVisibility,
  uploadedMessage,
  uploadLab,
} from '#app/modules/labs/admin.server.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { formatCourseLength, formatDuration } from '#app/utils/format.ts'
import {
  pageAction,
  invalidForm,
  readForm,
  replyOnRefusal,
  submitToService,
  submitUploadForm,
} from '#app/utils/forms.server.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requireAdminSide, requireContentManager } from '#app/utils/session.server.ts'
import { redirectWithSuccess } from '#app/utils/toast.server.ts'

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `${data?.course.title ?? 'Course'} · ${PRODUCT_NAME}` },
]

const TABS = [
  { id: 'videos', label: 'Course videos' },
  { id: 'documents', label: 'Documents' },
  { id: 'scenarios', label: 'Scenarios' },
  { id: 'labs', label: 'Labs' },
] as const
type TabId = (typeof TABS)[number]['id']

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request, params }: LoaderFunctionArgs) {
  const user = await requireAdminSide(request)
  const course = await getCourseDetail(user, params.courseId ?? '')
  return json({
    course,
    labs: await courseLabs(user, course._id),
    certificates: await certificateSettings(user, { kind: 'course', id: course._id }),
    canEdit: can(user, 'update:content'),
    mayIssue: can(user, 'manage:certificates'),
    mayChangeReminders: can(user, 'manage:reminders'),
    uploads: {
      image: uploadRules('courseImage'),
      document: uploadRules('documentEdit'),
      signature: uploadRules('certificateSignature'),
    },
  })
}

type Intent =
  | 'editVideo'
  | 'deleteVideo'
  | 'editDocument'
  | 'deleteDocument'
  | 'editCourse'
  | 'certificates'
  | 'reminders'
  | 'addLab'
  | 'visibility'
  | 'deleteLab'

/**
 * Every form of the page posts here with its intent in the URL (`?intent=…`), which is known before
 * the body is read: the forms that carry a file are read as multipart, with the file checked while
 * it streams. Success goes back to the tab with a toast; a refusal keeps the dialog open with errors,
 * or, for a delete, goes back to the tab with a toast.
 */
export const action = (args: ActionFunctionArgs) =>
  pageAction(args, runAction, { redirects: [{ to: ({ request, params }) => tabOf(request, params.courseId) }] })

function tabOf(request: Request, courseId = '') {
  const tab = TABS.find((t) => t.id === new URL(request.url).searchParams.get('tab'))?.id ?? 'videos'
  return `/admin/course/${courseId}?tab=${tab}`
}

async function runAction({ request, params }: ActionFunctionArgs) {
  const courseId = params.courseId ?? ''
  const url = new URL(request.url)
  const intent = url.searchParams.get('intent') as Intent | null
  const tab = TABS.find((t) => t.id === url.searchParams.get('tab'))?.id ?? 'videos'
  const user = await requireContentManager(request, `/admin/course/${encodeURIComponent(courseId)}`)
  const back = (message: string, to = tab) => redirectWithSuccess(`/admin/course/${courseId}?tab=${to}`, message)

  switch (intent) {
    case 'editVideo': {
      const formData = await readForm(request)
      formData.set('courseId', courseId)
      const submission = parseWithZod(formData, { schema: EditVideoSchema })
      if (submission.status !== 'success') return invalidForm(submission)
      const saved = await submitToService(submission, () => editVideo(user, submission.value))
      return saved.ok ? back(`Video "${saved.value.title}" updated.`, 'videos') : saved.response
    }
    case 'deleteVideo': {
      const videoId = String((await readForm(request)).get('videoId') ?? '')
      return back(videoDeletedMessage(await deleteVideo(user, courseId, videoId)), 'videos')
    }
    case 'deleteDocument': {
      const documentId = String((await readForm(request)).get('documentId') ?? '')
      const { kind } = await deleteDocument(user, courseId, documentId)
      return back(documentMessage(kind, 'deleted'))
    }
    case 'editDocument': {
      const saved = await submitUploadForm(request, {
        upload: { kind: 'documentEdit', fileField: 'courseDocument', actor: user },
        field: 'document',
        parse: (formData) => parseWithZod(formData, { schema: EditDocumentFormSchema }),
        fixed: { courseId },
        run: (value) => editDocument(user, value),
      })
      return saved.ok ? back(documentMessage(kindOf(saved.value.documentType), 'updated')) : saved.response
    }
    case 'editCourse': {
      const saved = await submitUploadForm(request, {
        upload: { kind: 'courseImage', fileField: 'courseImage', actor: user },
        field: 'courseImage',
        parse: (formData) => parseWithZod(formData, { schema: EditCourseSchema }),
        fixed: { courseId },
        run: (value) => editCourseDetails(user, value),
      })
      return saved.ok ? back('Course details saved.') : saved.response
    }
    case 'certificates': {
      const saved = await submitUploadForm(request, {
        upload: { kind: 'certificateSignature', fileField: 'certificateSignature', actor: user },
        field: 'certificateSignature',
        parse: (formData) => parseWithZod(formData, { schema: CertificateSettingsFormSchema }),
        run: (value) => editCertificateSettings(user, { kind: 'course', id: courseId }, value),
      })
      return saved.ok ? back(certificatesSavedMessage(saved.value)) : saved.response
    }
    case 'reminders': {
      // a plain form: the switch posts true or false; a refusal comes back to the tab as a toast
      const posted = (await readForm(request)).get('reminders')
      const { reminders } = await setCourseReminders(user, courseId, { reminders: posted ?? undefined })
      return back(remindersSavedMessage('course', reminders))
    }
    case 'addLab': {
      // the lab is built in the sandbox before the answer: a few seconds for a big dataset
      const added = await replyOnRefusal(
        async () => uploadLab(user, { courseId, bytes: (await receiveLabZip(user, request)).bytes }),
        (refusal): AddLabReply => ({
          intent: 'addLab',
          error: Object.values(refusal.errors ?? {})[0] ?? refusal.message,
        }),
      )
      return added.ok ? back(uploadedMessage(added.value), 'labs') : added.response
    }
    case 'visibility': {
      const form = await readForm(request)
      const { title, visible } = await setLabVisibility(user, {
        courseId,
        labId: String(form.get('labId') ?? ''),
        visible: form.get('visible') === 'true',
      })
      return back(`Lab "${title}" is ${visible ? 'shown to' : 'hidden from'} learners.`, 'labs')
    }
    case 'deleteLab': {
      const labId = String((await readForm(request)).get('labId') ?? '')
      const { title } = await deleteLab(user, { courseId, labId })
      return back(`Lab "${title}" deleted.`, 'labs')
    }
    default:
      throw invalid('Unknown action.')
  }
}

export default function AdminCourse() {
  const { course, labs, certificates, canEdit, mayIssue, mayChangeReminders, uploads } = useLoaderData<typeof loader>()
  const [params] = useSearchParams()
  const tab: TabId = TABS.some((t) => t.id === params.get('tab')) ? (params.get('tab') as TabId) : 'videos'
  const here = (changes: Record<string, string | null>) => {
    const next = new URLSearchParams({ tab })
    for (const [name, value] of Object.entries(changes)) if (value !== null) next.set(name, value)
    return `/admin/course/${course._id}?${next}`
  }
  const closeTo = here({})

  const editing = params.get('edit')
  const deleting = params.get('delete')
  const viewing = params.get('view')
  const entries: (VideoDto | DocumentDto)[] = [...course.videos, ...course.documents, ...course.scenarios]
  const editVideo = course.videos.find((v) => v._id === editing)
  const editFile = [...course.documents, ...course.scenarios].find((d) => d._id === editing)
  const deleteEntry = entries.find((e) => e._id === deleting)
  const viewFile = [...course.documents, ...course.scenarios].find((d) => d._id === viewing)
  const documents = tab === 'scenarios' ? course.scenarios : course.documents
  const labToDelete = tab === 'labs' ? labs.find((l) => l.id === deleting) : undefined

  return (
    <>
      <Breadcrumb items={[{ label: 'Courses', to: '/admin/courses' }, { label: course.title }]} />
      <header className="mt-3 flex flex-wrap items-start gap-6">
        <div className="w-48 shrink-0 overflow-hidden rounded-lg">
          <CourseImage src={course.courseImage?.link ?? null} title={course.title} />
        </div>
        {/* below the image when the two do not fit side by side, so a title word is never squeezed */}
        <div className="min-w-0 flex-1 basis-64">
          <h1 className="break-words text-2xl font-bold">{course.title}</h1>
          <p className="mt-1 text-sm text-slate-500">{formatCourseLength(course.videos.length, course.duration)}</p>
          <p className="mt-3 max-w-3xl whitespace-pre-line break-words text-slate-700">{course.description}</p>
        </div>
      </header>

      <CertificatesPanel
        kind="course"
        subjectId={course._id}
        settings={certificates}
        settingsTo={canEdit ? here({ edit: 'certificates' }) : undefined}
      />
      <RemindersPanel
        kind="course"
        on={course.reminders ?? true}
        action={canEdit && mayChangeReminders ? here({ intent: 'reminders' }) : undefined}
        note="Only admins switch reminders on or off."
      />

      <nav aria-label="Course contents" className="mt-8 flex flex-wrap gap-1 border-b border-slate-200">
        {TABS.map((t) => (
          <Link
            key={t.id}
            to={`?tab=${t.id}`}
            preventScrollReset
            aria-current={tab === t.id ? 'page' : undefined}
            className={`-mb-px border-b-2 px-2 py-2 text-sm font-medium sm:px-4 ${
              tab === t.id
                ? 'border-brand-600 text-brand-700'
                : 'border-transparent text-slate-600 hover:border-slate-300 hover:text-slate-800'
            }`}
          >
            {t.label}
          </Link>
        ))}
      </nav>

      <section className="mt-6" aria-label={TABS.find((t) => t.id === tab)?.label}>
        {tab === 'videos' ? (
          <VideosTab course={course} canEdit={canEdit} here={here} />
        ) : tab === 'labs' ? (
          <LabsTab courseId={course._id} labs={labs} canEdit={canEdit} deleteTo={(id) => here({ delete: id })} />
        ) : (
          <DocumentsTab
            courseId={course._id}
            type={tab === 'scenarios' ? 'Scenarios' : 'Document'}
            items={documents}
            canEdit={canEdit}
            here={here}
          />
        )}
      </section>

      {canEdit && editing === 'course' ? (
        <EditCourseDialog course={course} closeTo={closeTo} upload={uploads.image} />
      ) : null}
      {canEdit && editing === 'certificates' ? (
        <CertificateSettingsDialog
          kind="course"
          settings={certificates}
          closeTo={closeTo}
          upload={uploads.signature}
          mayIssue={mayIssue}
        />
      ) : null}
      {canEdit && editVideo ? (
        <EditVideoDialog
          video={editVideo}
          candidates={course.videos.filter((v) => v._id !== editVideo._id).map((v) => ({ id: v._id, title: v.title }))}
          closeTo={closeTo}
        />
      ) : null}
      {canEdit && editFile ? (
        <EditDocumentDialog document={editFile} closeTo={closeTo} upload={uploads.document} />
      ) : null}
      {canEdit && deleteEntry ? (
        <DeleteEntryDialog
          entry={deleteEntry}
          dependents={
            'embedUrl' in deleteEntry
              ? course.videos
                  .filter((v) => v.prerequisiteVideos.some((p) => p._id === deleteEntry._id))
                  .map((v) => v.title)
              : []
          }
          closeTo={closeTo}
        />
      ) : null}
      {canEdit && labToDelete ? <DeleteLabDialog lab={labToDelete} closeTo={closeTo} /> : null}
      {viewFile ? <ViewDocumentDialog document={viewFile} closeTo={closeTo} /> : null}
    </>
  )
}

/** The page's address with some parameters changed (a dialog opened: `{ edit: id }`). */
type Here = (changes: Record<string, string | null>) => string

type CourseData = ReturnType<typeof useLoaderData<typeof loader>>['course']

function VideosTab({ course, canEdit, here }: { course: CourseData; canEdit: boolean; here: Here }) {
  const titles = new Map(course.videos.map((v) => [v._id, v.title]))
  return (
    <>
      {canEdit ? (
        <div className="mb-4 flex flex-wrap gap-3">
          <Link to={`/admin/newVideo?courseId=${course._id}`} className="btn-primary">
            Add New Video
          </Link>
          {/* shown when the course has more than one video */}
          {course.videos.length > 1 ? (
            <>
              <Link to={`/admin/rearrangeCourse/${course._id}`} className="btn-secondary">
                Rearrange Course
              </Link>
              <Link to={here({ edit: 'course' })} preventScrollReset className="btn-secondary">
                Edit Course Details
              </Link>
            </>
          ) : null}
        </div>
      ) : null}
      {course.videos.length === 0 ? (
        <EmptyState title="No videos yet" text="Add the first video of this course." />
      ) : (
        <ol className="space-y-4">
          {course.videos.map((video, index) => (
            <li key={video._id} className="card flex flex-col gap-4 p-4 md:flex-row" data-testid="admin-video">
              <EmbeddedVideo
                src={video.embedUrl}
                title={video.title}
                lazy
                className="aspect-video w-full shrink-0 overflow-hidden rounded-md bg-black md:w-72"
              />
              <div className="min-w-0 flex-1">
                <h2 className="font-semibold">
                  <span className="tabular-nums text-slate-500">{index + 1}.</span> {video.title}
                </h2>
                <p className="mt-1 flex flex-wrap gap-2 text-xs">
                  <span className="text-slate-500">
                    {video.duration ? formatDuration(video.duration) : 'No duration'}
                  </span>
                  {!video.visibility ? <Badge tone="amber">Hidden</Badge> : null}
                  {video.preview ? <Badge tone="emerald">Preview</Badge> : null}
                </p>
                {video.prerequisiteVideos.length ? (
                  <p className="mt-1 text-xs text-slate-600">
                    Requires: {video.prerequisiteVideos.map((p) => titles.get(p._id) ?? p.title).join(', ')}
                  </p>
                ) : null}
                <p className="mt-2 line-clamp-3 text-sm text-slate-700">{video.description}</p>
                {canEdit ? <EntryActions id={video._id} name={video.title} here={here} className="mt-3" /> : null}
              </div>
            </li>
          ))}
        </ol>
      )}
    </>
  )
}

function DocumentsTab({
  courseId,
  type,
  items,
  canEdit,
  here,
}: {
  courseId: string
  type: 'Document' | 'Scenarios'
  items: DocumentDto[]
  canEdit: boolean
  here: Here
}) {
  const scenarios = type === 'Scenarios'
  return (
    <>
      {canEdit ? (
        <div className="mb-4 flex flex-wrap gap-3">
          <Link
            to={`/admin/${scenarios ? 'addScenarios' : 'addDocuments'}?courseId=${courseId}`}
            className="btn-primary"
          >
            {scenarios ? 'Add Scenarios' : 'Add Documents'}
          </Link>
          {items.length > 1 ? (
            <Link
              to={`/admin/RearrangeDocs/${courseId}?type=${scenarios ? 'scenarios' : 'document'}`}
              className="btn-secondary"
            >
              {scenarios ? 'Rearrange Scenarios' : 'Rearrange Documents'}
            </Link>
          ) : null}
        </div>
      ) : null}
      {items.length === 0 ? (
        <EmptyState title={scenarios ? 'No Scenarios found' : 'No Documents found'} />
      ) : (
        <ol className="card divide-y divide-slate-100">
          {items.map((item, index) => (
            <li
              key={item._id}
              className="flex flex-wrap items-center gap-3 px-4 py-3 text-sm"
              data-testid="admin-document"
            >
              <span className="w-6 text-right tabular-nums text-slate-500">{index + 1}.</span>
              {/* the viewer: a dialog with JavaScript, a panel in the page without it */}
              <Link
                to={here({ view: item._id })}
                preventScrollReset
                className="min-w-0 flex-1 truncate font-medium text-brand-700 hover:underline"
              >
                {item.document.name}
              </Link>
              {!item.visibility ? <Badge tone="amber">Hidden</Badge> : null}
              {canEdit ? <EntryActions id={item._id} name={item.document.name} here={here} /> : null}
            </li>
          ))}
        </ol>
      )}
    </>
  )
}

/** Edit and Delete for one video, document or scenario: links that open their dialogs, named after it. */
function EntryActions({
  id,
  name,
  here,
  className = '',
}: {
  id: string
  name: string
  here: Here
  className?: string
}) {
  return (
    <div className={`flex gap-2 ${className}`}>
      <Link to={here({ edit: id })} preventScrollReset className="btn-secondary py-1" aria-label={`Edit ${name}`}>
        Edit
      </Link>
      <Link
        to={here({ delete: id })}
        preventScrollReset
        className="btn py-1 text-red-700 hover:bg-red-50"
        aria-label={`Delete ${name}`}
      >
        Delete
      </Link>
    </div>
  )
}

function Badge({ tone, children }: { tone: 'amber' | 'emerald'; children: React.ReactNode }) {
  const tones = { amber: 'bg-amber-100 text-amber-800', emerald: 'bg-emerald-100 text-emerald-800' }
  return <span className={`rounded-full px-2 py-0.5 font-medium ${tones[tone]}`}>{children}</span>
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
