import { type ReactNode } from 'react'
import { Breadcrumb } from '#app/components/ui/breadcrumb.tsx'
import { formatCourseLength } from '#app/utils/format.ts'
import { CourseImage } from './course-image.tsx'

/**
 * A course's page, the learner's and the visitor's alike: the way back, the title and description over
 * the course's contents, and beside them a card with the course's picture and what to do next.
 */
export function CourseLayout({
  back,
  course,
  aside,
  children,
}: {
  back: { label: string; to: string }
  course: { title: string; description: string; imageUrl: string | null }
  aside: ReactNode
  children: ReactNode
}) {
  return (
    <div className="grid gap-8 lg:grid-cols-[1fr_22rem]">
      <div className="space-y-6">
        <Breadcrumb items={[back, { label: course.title }]} />
        <h1 className="text-3xl font-bold">{course.title}</h1>
        <p className="whitespace-pre-line text-slate-700">{course.description}</p>
        {children}
      </div>
      <aside className="card h-fit overflow-hidden">
        <CourseImage src={course.imageUrl} title={course.title} />
        {aside}
      </aside>
    </div>
  )
}

/** The heading of a course's list of videos (`contents-heading`), with how many there are and how long they take. */
export function ContentsHeading({ course }: { course: { videos: unknown[]; duration: number | null } }) {
  return (
    <>
      <h2 id="contents-heading" className="font-semibold">
        Contents
      </h2>
      <span className="text-sm text-slate-500">{formatCourseLength(course.videos.length, course.duration)}</span>
    </>
  )
}
