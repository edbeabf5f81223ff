import { json, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Link, useLoaderData } from '@remix-run/react'
import { EmbeddedVideo } from '#app/components/course/embedded-video.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { Breadcrumb } from '#app/components/ui/breadcrumb.tsx'
import { getPreviewVideo } from '#app/modules/courses/catalogue.server.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { formatDuration } from '#app/utils/format.ts'
import { pageLoader } from '#app/utils/pages.server.ts'

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `${data?.video.title ?? 'Preview'} · ${PRODUCT_NAME}` },
]

/** A video that is not a free preview goes back to the course's overview, saying so. */
export const loader = (args: LoaderFunctionArgs) =>
  pageLoader(args, loadPage, { redirects: [{ when: 403, to: ({ params }) => `/course-view/${params.courseId}` }] })

async function loadPage({ params }: LoaderFunctionArgs) {
  return json(await getPreviewVideo(params.courseId ?? '', params.videoId ?? ''))
}

/** A free-preview video, for anyone; the player here keeps no progress. */
export default function Preview() {
  const { course, video } = useLoaderData<typeof loader>()
  const previews = course.videos.filter((v) => v.preview)
  return (
    <main className="mx-auto max-w-5xl space-y-4 px-4 py-8 sm:px-6">
      <Breadcrumb
        items={[
          { label: 'Explore Courses', to: '/explore-courses' },
          { label: course.title, to: `/course-view/${course._id}` },
        ]}
      />
      <EmbeddedVideo src={video.embedUrl} title={video.title} />
      <p className="text-sm text-slate-500">
        Free preview{video.duration ? ` · ${formatDuration(video.duration)}` : ''}
      </p>
      <h1 className="text-2xl font-bold">{video.title}</h1>
      <p className="whitespace-pre-line text-slate-700">{video.description}</p>
      {previews.length > 1 ? (
        <section aria-labelledby="more-previews" className="card">
          <h2 id="more-previews" className="border-b border-slate-100 px-4 py-3 font-semibold">
            More free previews
          </h2>
          <ul className="divide-y divide-slate-100">
            {previews
              .filter((v) => v._id !== video._id)
              .map((v) => (
                <li key={v._id}>
                  <Link to={`/preview/${course._id}/${v._id}`} className="block px-4 py-3 text-sm hover:bg-slate-50">
                    {v.title}
                  </Link>
                </li>
              ))}
          </ul>
        </section>
      ) : null}
    </main>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary landmark />
}
