// oidc-provider ships no types of its own. These are the few parts of its API the test provider uses.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http'

  export interface Grant {
    addOIDCScope(scope: string): void
    save(): Promise<string>
  }

  /** The slice of oidc-provider's Koa context the test provider reads. */
  export interface Context {
    method: string
    path: string
    req: IncomingMessage
    res: ServerResponse
    /** false when the middleware wrote the response itself */
    respond: boolean
    oidc: {
      client?: { clientId: string }
      account?: { accountId: string }
      session: { grantIdFor(clientId: string): string | undefined }
      result?: { consent?: { grantId?: string } }
      /** the requested scopes that name claims (openid, email, profile, groups …) */
      requestParamOIDCScopes: Set<string>
    }
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>)
    readonly issuer: string
    /** trust X-Forwarded-* headers (Koa's app.proxy) */
    proxy: boolean
    Grant: {
      new (properties: { accountId: string; clientId: string }): Grant
      find(id: string): Promise<Grant | undefined>
    }
    callback(): (req: IncomingMessage, res: ServerResponse) => void
    /** Koa middleware, run before the provider's own routes */
    use(middleware: (ctx: Context, next: () => Promise<void>) => Promise<unknown>): this
    on(event: string, listener: (...args: never[]) => void): this
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<{ prompt: { name: string } }>
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>
  }
}
