import type { ContentEntry, StoredFile } from '#db/models/index.ts'
import { fileLink } from '../files/links.ts'
import { locksItsVideo } from '../progress/prerequisites.ts'
import type { DocumentType } from './schema.ts'

// A course's videos and documents as the /api speaks of them (`_id`, `documentType`, `{ key, link, name }`);
// the course itself is in courses/dto.ts.

export type FileInfoDto = { key: string; link: string; name: string }

export type VideoDto = {
  _id: string
  relatedCourse: string
  orderId: number
  title: string
  description: string
  duration: number | null
  visibility: boolean
  preview: boolean
  embedUrl: string
  prerequisiteVideos: { _id: string; title: string }[]
  createdAt: string
  updatedAt: string
}

export type DocumentDto = {
  _id: string
  courseId: string
  documentType: DocumentType
  document: FileInfoDto
  /** the stored file's type, so a viewer knows whether it can show it (isInlineType) */
  contentType: string
  orderId: number
  visibility: boolean
  createdAt: string
  updatedAt: string
}

export const fileInfo = (file: Pick<StoredFile, 'key' | 'name'>): FileInfoDto => ({
  key: file.key,
  link: fileLink(file.key),
  name: file.name,
})

const documentTypeOf = (kind: ContentEntry['kind']): DocumentType => (kind === 'scenario' ? 'Scenarios' : 'Document')
export const kindOf = (type: DocumentType) => (type === 'Scenarios' ? 'scenario' : 'document')

/** A video; `allPrerequisites: false` (a learner's view) lists only the prerequisites that lock it. */
export function videoDto(entry: ContentEntry, options: { allPrerequisites?: boolean } = {}): VideoDto {
  const prerequisites = (entry.prerequisites ?? []).filter(
    (p) => options.allPrerequisites !== false || locksItsVideo(p),
  )
  return {
    _id: entry.id,
    relatedCourse: entry.courseId,
    orderId: entry.orderId,
    title: entry.title,
    description: entry.description,
    duration: entry.duration,
    visibility: entry.visibility,
    preview: entry.preview,
    embedUrl: entry.embedUrl ?? '',
    prerequisiteVideos: prerequisites.map((p) => ({ _id: p.id, title: p.title })),
    createdAt: entry.createdAt.toISOString(),
    updatedAt: entry.updatedAt.toISOString(),
  }
}

export function documentDto(entry: ContentEntry): DocumentDto {
  return {
    _id: entry.id,
    courseId: entry.courseId,
    documentType: documentTypeOf(entry.kind),
    document: entry.file ? fileInfo(entry.file) : { key: entry.fileKey ?? '', link: '', name: entry.title },
    contentType: entry.file?.contentType ?? '',
    orderId: entry.orderId,
    visibility: entry.visibility,
    createdAt: entry.createdAt.toISOString(),
    updatedAt: entry.updatedAt.toISOString(),
  }
}
