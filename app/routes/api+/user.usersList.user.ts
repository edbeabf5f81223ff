import { listUsers, userListStream } from '#app/modules/users/service.server.ts'
import { apiLoader, pageQuery, methodNotAllowed } from '#app/utils/api.server.ts'
import { streamedJsonList } from '#app/utils/json-stream.server.ts'

// GET /api/user/usersList/user → { message: [learners] }; one page with ?page=&size=, else every
// one, streamed as it is read; search with ?q=.
export const loader = apiLoader(async ({ request, actor }) => {
  const url = new URL(request.url)
  const paging = pageQuery(url)
  const q = url.searchParams.get('q') ?? ''
  if (!paging) return streamedJsonList('message', userListStream(actor, 'learner', { q }), request.signal)
  const { rows, total } = await listUsers(actor, 'learner', { q, ...paging.range })
  return { message: rows, total, page: paging.page, size: paging.size }
})
export const action = () => methodNotAllowed(['GET'])
