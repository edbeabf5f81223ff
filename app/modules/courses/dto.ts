import type { Course } from '#db/models/index.ts'
import { fileInfo, type FileInfoDto } from '../content/dto.ts'
import type { DueView } from '../deadlines/due.ts'

// A course as the /api and the pages speak of it (`_id`, `courseImage { key, link, name }`): the
// catalogue, the course detail and overview, and My Courses all answer in these shapes.

export type CourseDto = {
  _id: string
  title: string
  description: string
  courseImage: FileInfoDto | null
  /** seconds of visible video; null when a visible video has no duration (courses/duration.server.ts) */
  duration: number | null
  createdAt: string
  updatedAt: string
}

/** A course's picture as it was read: its key and the stored file's name. */
type CourseImageRecord = { key: string; name: string }

/** The one mapping from a course (a model or a row read as one) to its CourseDto. */
export function courseDto(
  course: Pick<Course, 'id' | 'title' | 'description' | 'createdAt' | 'updatedAt'>,
  image: CourseImageRecord | null,
  duration: number | null,
): CourseDto {
  return {
    _id: course.id,
    title: course.title,
    description: course.description,
    courseImage: image ? fileInfo(image) : null,
    duration,
    createdAt: new Date(course.createdAt).toISOString(),
    updatedAt: new Date(course.updatedAt).toISOString(),
  }
}

/** A card of My Courses: the course (without its dates) and the learner's progress in it. */
export type CourseCard = Omit<CourseDto, 'createdAt' | 'updatedAt'> & {
  videoCount: number
  /** unique seconds watched of the visible videos */
  watched: number
  /** capped at 100 */
  percent: number
  /**
   * when the course is due for the learner, in their time zone: the earliest of its own assignment's due date
   * and those of the assigned programs that hold it; null when none has one
   */
  due: DueView | null
  /** the title of the program the due date comes from; null when it is the course's own assignment's */
  dueProgram: string | null
  /** every visible video and lab done, as the completion tallies keep it */
  completed: boolean
}

/** GET /api/category/assignedCourses/{userId}: a card under the /api's names for the progress. */
export function assignedCourseDto(card: CourseCard) {
  return {
    _id: card._id,
    title: card.title,
    description: card.description,
    courseImage: card.courseImage,
    duration: card.duration,
    courseProgress: card.watched,
    percentage: card.percent,
    dueDate: card.due?.dueDate ?? null,
    dueAt: card.due?.dueAt ?? null,
    completed: card.completed,
  }
}
