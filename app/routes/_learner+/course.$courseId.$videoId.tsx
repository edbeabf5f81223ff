import { json, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Link, useLoaderData, useLocation, useRevalidator } from '@remix-run/react'
import { useState } from 'react'
import { EmbeddedVideo } from '#app/components/course/embedded-video.tsx'
import { FileList, VideoList } from '#app/components/course/video-list.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { useAccessLogPing } from '#app/components/learner/use-access-log-ping.ts'
import { VideoPlayer } from '#app/components/player/video-player.tsx'
import { CourseBreadcrumb } from '#app/components/ui/breadcrumb.tsx'
import { Tabs } from '#app/components/ui/tabs.tsx'
import { can } from '#app/modules/auth/permissions.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { formatDuration } from '#app/utils/format.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { COURSE_REFUSALS, loadCourseVideo } from './__course.server.ts'

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `${data?.video.title ?? 'Video'} · ${PRODUCT_NAME}` },
]

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage, { redirects: COURSE_REFUSALS })

/** The side panel's tabs; the chosen one is in the URL (`?tab=documents`), Contents when none is. */
const TABS = ['contents', 'documents', 'scenarios'] as const
type TabId = (typeof TABS)[number]

async function loadPage({ request, params }: LoaderFunctionArgs) {
  const { user, course, video, index } = await loadCourseVideo(request, params.courseId ?? '', params.videoId ?? '')
  const asked = new URL(request.url).searchParams.get('tab')
  return json({
    tab: TABS.find((t) => t === asked) ?? 'contents',
    course,
    video,
    userId: user.id,
    learner: can(user, 'record:progress:own'),
    previous: course.videos[index - 1]?._id ?? null,
    next: course.videos[index + 1]?._id ?? null,
    position: index + 1,
  })
}

export default function VideoPage() {
  const { tab: loadedTab, course, video, userId, learner, previous, next, position } = useLoaderData<typeof loader>()
  const revalidator = useRevalidator()
  // A tab chosen with JavaScript is kept until the next navigation, which brings its URL's tab; the
  // address is replaced in place rather than navigated to, so choosing a tab loads nothing again.
  const { key: visit } = useLocation()
  const [chosen, setChosen] = useState<{ visit: string; tab: TabId }>({ visit, tab: loadedTab })
  const tab = chosen.visit === visit ? chosen.tab : loadedTab
  const choose = (to: TabId) => {
    setChosen({ visit, tab: to })
    const url = new URL(window.location.href)
    url.search = tabQuery(url.searchParams, to)
    window.history.replaceState(window.history.state, '', url)
  }
  // Previous and Next keep the tab the learner is on
  const videoHref = (id: string, on: TabId = tab) => `/course/${course._id}/${id}${tabQuery(new URLSearchParams(), on)}`
  useAccessLogPing({ enabled: learner, pageName: 'Video', courseId: course._id, videoId: video._id })
  return (
    <div className="grid gap-8 lg:grid-cols-[1fr_24rem]">
      <div className="space-y-4">
        <CourseBreadcrumb course={course} />
        {learner ? (
          <VideoPlayer
            video={{
              id: video._id,
              title: video.title,
              embedUrl: video.embedUrl,
              duration: video.duration,
              lastPosition: video.lastPosition,
            }}
            courseId={course._id}
            userId={userId}
            onProgress={(answer) => {
              // a video just completed: its green check, the next video's lock and the percent change
              if (answer.completed && !video.completed && revalidator.state === 'idle') revalidator.revalidate()
            }}
          />
        ) : (
          <EmbeddedVideo src={video.embedUrl} title={video.title} />
        )}
        <div className="flex flex-wrap items-center justify-between gap-3">
          <div>
            <p className="text-sm text-slate-500">
              Video {position} of {course.videos.length}
              {video.duration ? ` · ${formatDuration(video.duration)}` : ''}
              {video.completed ? ' · Completed' : ''}
            </p>
            <h1 className="text-2xl font-bold">{video.title}</h1>
          </div>
          <div className="flex gap-2">
            <StepLink to={previous ? videoHref(previous) : null} label="Previous" />
            <StepLink to={next ? videoHref(next) : null} label="Next" />
          </div>
        </div>
        <p className="whitespace-pre-line text-slate-700">{video.description}</p>
      </div>
      <aside className="card h-fit">
        <Tabs
          label="Course material"
          selected={tab}
          onSelect={choose}
          tabs={[
            {
              id: 'contents',
              label: 'Contents',
              href: videoHref(video._id, 'contents'),
              content: <VideoList courseId={course._id} videos={course.videos} currentId={video._id} />,
            },
            {
              id: 'documents',
              label: 'Documents',
              href: videoHref(video._id, 'documents'),
              content: <FileList items={course.documents} empty="No Documents found" />,
            },
            {
              id: 'scenarios',
              label: 'Scenarios',
              href: videoHref(video._id, 'scenarios'),
              content: <FileList items={course.scenarios} empty="No Scenarios found" />,
            },
          ]}
        />
      </aside>
    </div>
  )
}

/** The query string with this tab in it: none for Contents, the default. */
function tabQuery(params: URLSearchParams, tab: TabId) {
  const next = new URLSearchParams(params)
  if (tab === 'contents') next.delete('tab')
  else next.set('tab', tab)
  const query = next.toString()
  return query ? `?${query}` : ''
}

/** Previous/next: a link, or a disabled button at either end of the course. */
function StepLink({ to, label }: { to: string | null; label: string }) {
  if (!to)
    return (
      <button type="button" className="btn-secondary" disabled>
        {label}
      </button>
    )
  return (
    <Link to={to} className="btn-secondary" rel={label === 'Next' ? 'next' : 'prev'}>
      {label}
    </Link>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
