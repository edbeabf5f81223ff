import { listCourseTitles } from '#app/modules/courses/service.server.ts'
import { apiLoader, methodNotAllowed } from '#app/utils/api.server.ts'

// GET /api/category/coursesList → { courses: [{ _id, title }] }, for pickers.
export const loader = apiLoader(async ({ actor }) => ({ courses: await listCourseTitles(actor) }))
export const action = () => methodNotAllowed(['GET'])
