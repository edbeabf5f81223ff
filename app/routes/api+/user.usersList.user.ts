import { listUsers } from '#app/modules/users/service.server.ts'
import { apiLoader, pageQuery, methodNotAllowed } from '#app/utils/api.server.ts'

// GET /api/user/usersList/user → { message: [learners] }; one page with ?page=&size=, search with ?q=.
export const loader = apiLoader(async ({ request, actor }) => {
  const url = new URL(request.url)
  const paging = pageQuery(url)
  const { rows, total } = await listUsers(actor, 'user', { q: url.searchParams.get('q') ?? '', ...paging?.range })
  return paging ? { message: rows, total, page: paging.page, size: paging.size } : { message: rows }
})
export const action = () => methodNotAllowed(['GET'])
