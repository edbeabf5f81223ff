// The admin user menu's Reset Password: the same page as the learner's, inside the admin layout.
export { action, default, ErrorBoundary, loader, meta } from '../_learner+/Passwordreset.tsx'
