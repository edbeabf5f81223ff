// The admin user menu's Edit Profile: the same page as the learner's, inside the admin layout.
export { action, default, ErrorBoundary, loader, meta } from '../_learner+/editProfile.tsx'
