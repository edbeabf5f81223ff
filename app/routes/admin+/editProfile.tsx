// The admin user menu's Edit Profile (spec §2): the same page as the learner's, inside the admin layout.
export { action, default, ErrorBoundary, loader, meta } from '../_learner+/editProfile.tsx'
