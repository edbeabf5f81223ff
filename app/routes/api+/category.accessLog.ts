import { accessLogReport } from '#app/modules/access-log/service.server.ts'
import { apiAction, methodNotAllowed, pageQuery, readJsonObject } from '#app/utils/api.server.ts'
import { isAdminSide } from '#app/modules/auth/roles.ts'

// POST /api/category/accessLog { startDate, endDate, courses } → { data } (spec §7): the admin report,
// whole, or one page with ?page=&size=.
export const action = apiAction(
  'POST',
  async ({ request, actor }) => {
    const paging = pageQuery(new URL(request.url))
    const { rows, total } = await accessLogReport(actor, await readJsonObject(request), paging?.range)
    return paging ? { data: rows, total, page: paging.page, size: paging.size } : { data: rows }
  },
  { allow: isAdminSide, denied: 'The access log is for the admin side.' },
)
export const loader = () => methodNotAllowed(['POST'])
