import { Link } from '@remix-run/react'
import type { VideoItem } from '#app/modules/courses/learner.server.ts'
import { formatDuration } from '#app/utils/format.ts'

/**
 * The numbered list of a course's videos: a green check on completed ones; a locked one (its
 * prerequisites unfinished) in red. Locked links still go to the video, whose page answers with
 * the lock toast, so the rule lives in one place on the server.
 */
export function VideoList({
  courseId,
  videos,
  currentId,
}: {
  courseId: string
  videos: VideoItem[]
  currentId?: string
}) {
  if (videos.length === 0) return <p className="p-4 text-sm text-slate-600">No videos in this course yet.</p>
  return (
    <ol className="divide-y divide-slate-100">
      {videos.map((video, index) => {
        const locked = video.lockedBy.length > 0
        const current = video._id === currentId
        return (
          <li key={video._id}>
            <Link
              to={`/course/${courseId}/${video._id}`}
              aria-current={current ? 'page' : undefined}
              className={`flex items-center gap-3 px-4 py-3 text-sm hover:bg-slate-50 ${current ? 'bg-brand-50' : ''} ${
                locked ? 'text-red-600' : 'text-slate-800'
              }`}
            >
              <span className="w-6 text-right tabular-nums text-slate-600">{index + 1}.</span>
              <span className="flex-1">
                {video.title}
                {locked ? (
                  <span className="sr-only"> (locked until you finish {video.lockedBy.join(', ')})</span>
                ) : null}
              </span>
              <span className="tabular-nums text-slate-600">{formatDuration(video.duration)}</span>
              {video.completed ? (
                <svg
                  viewBox="0 0 20 20"
                  className="h-5 w-5 text-emerald-600"
                  fill="currentColor"
                  role="img"
                  aria-label="Completed"
                >
                  <path
                    fillRule="evenodd"
                    d="M10 18a8 8 0 100-16 8 8 0 000 16zm3.7-9.3a1 1 0 00-1.4-1.4L9 10.6 7.7 9.3a1 1 0 00-1.4 1.4l2 2a1 1 0 001.4 0l4-4z"
                    clipRule="evenodd"
                  />
                </svg>
              ) : locked ? (
                <svg viewBox="0 0 20 20" className="h-5 w-5" fill="currentColor" aria-hidden>
                  <path
                    fillRule="evenodd"
                    d="M5 9V7a5 5 0 0110 0v2a2 2 0 012 2v5a2 2 0 01-2 2H5a2 2 0 01-2-2v-5a2 2 0 012-2zm8-2v2H7V7a3 3 0 016 0z"
                    clipRule="evenodd"
                  />
                </svg>
              ) : (
                <span className="h-5 w-5" aria-hidden />
              )}
            </Link>
          </li>
        )
      })}
    </ol>
  )
}

export function FileList({ items, empty }: { items: { _id: string; name: string; link: string }[]; empty: string }) {
  if (items.length === 0) return <p className="p-4 text-sm text-slate-600">{empty}</p>
  return (
    <ol className="divide-y divide-slate-100">
      {items.map((item, index) => (
        <li key={item._id} className="flex items-center gap-3 px-4 py-3 text-sm">
          <span className="w-6 text-right tabular-nums text-slate-600">{index + 1}.</span>
          <a href={item.link} className="flex-1 text-brand-700 hover:underline" target="_blank" rel="noreferrer">
            {item.name}
          </a>
        </li>
      ))}
    </ol>
  )
}
