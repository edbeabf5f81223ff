import type { Sequelize } from 'sequelize'
import { AccessLogPing, initAccessLogPing } from './access-log-ping.ts'
import { AssessmentUpload, initAssessmentUpload } from './assessment-upload.ts'
import { BridgeTokenUse, initBridgeTokenUse } from './bridge-token-use.ts'
import { ContentEntry, initContentEntry } from './content-entry.ts'
import { CourseAssignment, initCourseAssignment } from './course-assignment.ts'
import { Course, initCourse } from './course.ts'
import { PasswordResetToken, initPasswordResetToken } from './password-reset-token.ts'
import { ProgramAssignment, initProgramAssignment } from './program-assignment.ts'
import { ProgramCourse, initProgramCourse } from './program-course.ts'
import { Program, initProgram } from './program.ts'
import { Role, initRole } from './role.ts'
import { Setting, initSetting } from './setting.ts'
import { StoredFile, initStoredFile } from './stored-file.ts'
import { User, initUser } from './user.ts'
import { VideoAudit, initVideoAudit } from './video-audit.ts'
import { VideoPrerequisite, initVideoPrerequisite } from './video-prerequisite.ts'
import { VideoProgress, initVideoProgress } from './video-progress.ts'

// Models mirror db/migrations (the schema's source of truth); they are never synced. One file per
// model holds its class and its attributes; tests/integration/models-schema.test.ts compares every
// model with a freshly migrated database, so a migration that changes a modelled table changes its
// model too.

export type { ContentKind } from './content-entry.ts'
export { ContentEntry, Course, Program, StoredFile, User }

export function initModels(sequelize: Sequelize) {
  initRole(sequelize)
  initUser(sequelize)
  initStoredFile(sequelize)
  initCourse(sequelize)
  initContentEntry(sequelize)
  initVideoPrerequisite(sequelize)
  initVideoProgress(sequelize)
  initVideoAudit(sequelize)
  initAccessLogPing(sequelize)
  initAssessmentUpload(sequelize)
  initProgram(sequelize)
  initProgramCourse(sequelize)
  initCourseAssignment(sequelize)
  initProgramAssignment(sequelize)
  initPasswordResetToken(sequelize)
  initBridgeTokenUse(sequelize)
  initSetting(sequelize)

  User.belongsTo(Role, { foreignKey: 'roleId', as: 'role' })
  Course.belongsTo(StoredFile, { foreignKey: 'imageKey', as: 'image' })
  Course.hasMany(ContentEntry, { foreignKey: 'courseId', as: 'entries' })
  ContentEntry.belongsTo(Course, { foreignKey: 'courseId', as: 'course' })
  ContentEntry.belongsTo(StoredFile, { foreignKey: 'fileKey', as: 'file' })
  ContentEntry.belongsToMany(ContentEntry, {
    through: VideoPrerequisite,
    as: 'prerequisites',
    foreignKey: 'videoId',
    otherKey: 'prerequisiteId',
  })
  Program.belongsTo(StoredFile, { foreignKey: 'imageKey', as: 'image' })
  Program.belongsToMany(Course, {
    through: ProgramCourse,
    as: 'courses',
    foreignKey: 'programId',
    otherKey: 'courseId',
  })
  AssessmentUpload.belongsTo(StoredFile, { foreignKey: 'fileKey', as: 'file' })
  AssessmentUpload.belongsTo(User, { foreignKey: 'userId', as: 'user' })
  AssessmentUpload.belongsTo(Course, { foreignKey: 'courseId', as: 'course' })
  AssessmentUpload.belongsTo(ContentEntry, { foreignKey: 'scenarioId', as: 'scenario' })

  return {
    Role,
    User,
    StoredFile,
    Course,
    ContentEntry,
    VideoPrerequisite,
    VideoProgress,
    VideoAudit,
    AccessLogPing,
    AssessmentUpload,
    Program,
    ProgramCourse,
    CourseAssignment,
    ProgramAssignment,
    PasswordResetToken,
    BridgeTokenUse,
    Setting,
  }
}

export type Models = ReturnType<typeof initModels>
