import {
  DataTypes,
  Model,
  type CreationOptional,
  type ForeignKey,
  type InferAttributes,
  type InferCreationAttributes,
  type NonAttribute,
  type Sequelize,
} from 'sequelize'

// Models mirror db/migrations (the schema's source of truth); they are never synced.

export class Role extends Model<InferAttributes<Role>, InferCreationAttributes<Role>> {
  declare rId: number
  declare name: string
}

export class User extends Model<InferAttributes<User>, InferCreationAttributes<User>> {
  declare id: CreationOptional<string>
  declare firstName: string
  declare lastName: CreationOptional<string>
  declare userName: string
  declare email: string
  declare passwordHash: string | null
  declare roleId: CreationOptional<number>
  declare tokenVersion: CreationOptional<number>
  declare externalId: CreationOptional<string | null>
  declare createdAt: CreationOptional<Date>
  declare updatedAt: CreationOptional<Date>
}

export class StoredFile extends Model<InferAttributes<StoredFile>, InferCreationAttributes<StoredFile>> {
  declare key: string
  declare name: string
  declare contentType: string
  declare size: number
  declare purpose: 'course_image' | 'program_image' | 'document' | 'assessment' | 'user_import' | 'import_errors'
  declare uploadedBy: string | null
  declare createdAt: CreationOptional<Date>
}

export class Course extends Model<InferAttributes<Course>, InferCreationAttributes<Course>> {
  declare id: CreationOptional<string>
  declare title: string
  declare description: string
  declare imageKey: CreationOptional<string | null>
  declare createdAt: CreationOptional<Date>
  declare updatedAt: CreationOptional<Date>
  declare image?: NonAttribute<StoredFile | null>
  declare entries?: NonAttribute<ContentEntry[]>
}

export type ContentKind = 'video' | 'document' | 'scenario'

export class ContentEntry extends Model<InferAttributes<ContentEntry>, InferCreationAttributes<ContentEntry>> {
  declare id: CreationOptional<string>
  declare courseId: ForeignKey<Course['id']>
  declare kind: ContentKind
  declare orderId: CreationOptional<number>
  declare title: CreationOptional<string>
  declare description: CreationOptional<string>
  declare visibility: CreationOptional<boolean>
  declare preview: CreationOptional<boolean>
  declare embedUrl: CreationOptional<string | null>
  declare duration: CreationOptional<number | null>
  declare fileKey: CreationOptional<string | null>
  declare createdAt: CreationOptional<Date>
  declare updatedAt: CreationOptional<Date>
  declare file?: NonAttribute<StoredFile | null>
  declare prerequisites?: NonAttribute<ContentEntry[]>
}

export class VideoPrerequisite extends Model<
  InferAttributes<VideoPrerequisite>,
  InferCreationAttributes<VideoPrerequisite>
> {
  declare videoId: string
  declare prerequisiteId: string
  declare courseId: string
}

export class VideoProgress extends Model<InferAttributes<VideoProgress>, InferCreationAttributes<VideoProgress>> {
  declare userId: string
  declare videoId: string
  declare courseId: string
  declare watchedSeconds: CreationOptional<number>
  declare lastPosition: CreationOptional<number>
  declare completed: CreationOptional<boolean>
  declare completedAt: CreationOptional<Date | null>
  declare createdAt: CreationOptional<Date>
  declare updatedAt: CreationOptional<Date>
}

export class VideoAudit extends Model<InferAttributes<VideoAudit>, InferCreationAttributes<VideoAudit>> {
  declare userId: string
  declare videoId: string
  declare courseId: string
  declare videoDuration: number
  declare videoProgress: number
  declare lastViewedAt: CreationOptional<Date>
}

export class AccessLogPing extends Model<InferAttributes<AccessLogPing>, InferCreationAttributes<AccessLogPing>> {
  declare id: CreationOptional<string>
  declare userId: string
  declare pageName: string
  declare recordedAt: CreationOptional<Date>
  declare courseId: CreationOptional<string | null>
  declare videoId: CreationOptional<string | null>
}

export class AssessmentUpload extends Model<
  InferAttributes<AssessmentUpload>,
  InferCreationAttributes<AssessmentUpload>
> {
  declare id: CreationOptional<string>
  declare userId: string
  declare courseId: string
  declare scenarioId: string
  declare fileKey: string
  declare createdAt: CreationOptional<Date>
  declare file?: NonAttribute<StoredFile | null>
  declare scenario?: NonAttribute<ContentEntry | null>
  declare user?: NonAttribute<User | null>
  declare course?: NonAttribute<Course | null>
}

export class Program extends Model<InferAttributes<Program>, InferCreationAttributes<Program>> {
  declare id: CreationOptional<string>
  declare title: string
  declare description: CreationOptional<string>
  declare path: CreationOptional<string>
  declare learningPath: CreationOptional<string>
  declare duration: CreationOptional<string>
  declare price: CreationOptional<string | null>
  declare imageKey: CreationOptional<string | null>
  declare createdAt: CreationOptional<Date>
  declare updatedAt: CreationOptional<Date>
  declare image?: NonAttribute<StoredFile | null>
  /** with the join row, whose position orders the courses */
  declare courses?: NonAttribute<(Course & { ProgramCourse: ProgramCourse })[]>
}

export class ProgramCourse extends Model<InferAttributes<ProgramCourse>, InferCreationAttributes<ProgramCourse>> {
  declare programId: string
  declare courseId: string
  declare position: number
}

export class CourseAssignment extends Model<
  InferAttributes<CourseAssignment>,
  InferCreationAttributes<CourseAssignment>
> {
  declare userId: string
  declare courseId: string
  declare assignedBy: CreationOptional<string | null>
  declare createdAt: CreationOptional<Date>
}

export class ProgramAssignment extends Model<
  InferAttributes<ProgramAssignment>,
  InferCreationAttributes<ProgramAssignment>
> {
  declare userId: string
  declare programId: string
  declare assignedBy: CreationOptional<string | null>
  declare createdAt: CreationOptional<Date>
}

export class PasswordResetToken extends Model<
  InferAttributes<PasswordResetToken>,
  InferCreationAttributes<PasswordResetToken>
> {
  declare id: CreationOptional<string>
  declare userId: string
  declare tokenHash: string
  declare purpose: 'reset' | 'invite'
  declare expiresAt: Date
  declare usedAt: CreationOptional<Date | null>
  declare createdAt: CreationOptional<Date>
}

export class BridgeTokenUse extends Model<InferAttributes<BridgeTokenUse>, InferCreationAttributes<BridgeTokenUse>> {
  declare jti: string
  declare expiresAt: Date
  declare usedAt: CreationOptional<Date>
}

export class Setting extends Model<InferAttributes<Setting>, InferCreationAttributes<Setting>> {
  declare key: string
  declare value: unknown
  declare updatedAt: CreationOptional<Date>
}

const uuid = { type: DataTypes.UUID, defaultValue: DataTypes.UUIDV4, primaryKey: true }
// a new object per use: Sequelize writes `field` into the attribute object it is given
const timestamp = () => ({ type: DataTypes.DATE, allowNull: false })
const common = { underscored: true }

export function initModels(sequelize: Sequelize) {
  Role.init(
    { rId: { type: DataTypes.SMALLINT, primaryKey: true, field: 'r_id' }, name: DataTypes.TEXT },
    { sequelize, tableName: 'roles', timestamps: false, ...common },
  )
  User.init(
    {
      id: uuid,
      firstName: { type: DataTypes.TEXT, allowNull: false },
      lastName: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
      userName: { type: DataTypes.CITEXT, allowNull: false },
      email: { type: DataTypes.CITEXT, allowNull: false },
      passwordHash: DataTypes.TEXT,
      roleId: { type: DataTypes.SMALLINT, allowNull: false, defaultValue: 2 },
      tokenVersion: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      externalId: DataTypes.TEXT,
      createdAt: timestamp(),
      updatedAt: timestamp(),
    },
    { sequelize, tableName: 'users', ...common },
  )
  StoredFile.init(
    {
      key: { type: DataTypes.TEXT, primaryKey: true },
      name: { type: DataTypes.TEXT, allowNull: false },
      contentType: { type: DataTypes.TEXT, allowNull: false },
      size: { type: DataTypes.INTEGER, allowNull: false },
      purpose: { type: DataTypes.TEXT, allowNull: false },
      uploadedBy: DataTypes.UUID,
      createdAt: timestamp(),
    },
    { sequelize, tableName: 'files', updatedAt: false, ...common },
  )
  Course.init(
    {
      id: uuid,
      title: { type: DataTypes.TEXT, allowNull: false },
      description: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
      imageKey: DataTypes.TEXT,
      createdAt: timestamp(),
      updatedAt: timestamp(),
    },
    { sequelize, tableName: 'courses', ...common },
  )
  ContentEntry.init(
    {
      id: uuid,
      kind: { type: DataTypes.TEXT, allowNull: false },
      orderId: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      title: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
      description: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
      visibility: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
      preview: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      embedUrl: DataTypes.TEXT,
      duration: DataTypes.INTEGER,
      fileKey: DataTypes.TEXT,
      createdAt: timestamp(),
      updatedAt: timestamp(),
    },
    { sequelize, tableName: 'content_entries', ...common },
  )
  VideoPrerequisite.init(
    {
      videoId: { type: DataTypes.UUID, primaryKey: true },
      prerequisiteId: { type: DataTypes.UUID, primaryKey: true },
      courseId: { type: DataTypes.UUID, allowNull: false },
    },
    { sequelize, tableName: 'video_prerequisites', timestamps: false, ...common },
  )
  VideoProgress.init(
    {
      userId: { type: DataTypes.UUID, primaryKey: true },
      videoId: { type: DataTypes.UUID, primaryKey: true },
      courseId: { type: DataTypes.UUID, allowNull: false },
      watchedSeconds: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      lastPosition: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      completed: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      completedAt: DataTypes.DATE,
      createdAt: timestamp(),
      updatedAt: timestamp(),
    },
    { sequelize, tableName: 'video_progress', ...common },
  )
  VideoAudit.init(
    {
      userId: { type: DataTypes.UUID, primaryKey: true },
      videoId: { type: DataTypes.UUID, primaryKey: true },
      courseId: { type: DataTypes.UUID, allowNull: false },
      videoDuration: { type: DataTypes.INTEGER, allowNull: false },
      videoProgress: { type: DataTypes.INTEGER, allowNull: false },
      lastViewedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: DataTypes.NOW },
    },
    { sequelize, tableName: 'video_audits', timestamps: false, ...common },
  )
  AccessLogPing.init(
    {
      id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
      userId: { type: DataTypes.UUID, allowNull: false },
      pageName: { type: DataTypes.TEXT, allowNull: false },
      recordedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: DataTypes.NOW },
      courseId: DataTypes.UUID,
      videoId: DataTypes.UUID,
    },
    { sequelize, tableName: 'access_log_pings', timestamps: false, ...common },
  )
  AssessmentUpload.init(
    {
      id: uuid,
      userId: { type: DataTypes.UUID, allowNull: false },
      courseId: { type: DataTypes.UUID, allowNull: false },
      scenarioId: { type: DataTypes.UUID, allowNull: false },
      fileKey: { type: DataTypes.TEXT, allowNull: false },
      createdAt: timestamp(),
    },
    { sequelize, tableName: 'assessment_uploads', updatedAt: false, ...common },
  )
  Program.init(
    {
      id: uuid,
      title: { type: DataTypes.TEXT, allowNull: false },
      description: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
      path: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
      learningPath: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
      duration: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
      price: DataTypes.DECIMAL(10, 2),
      imageKey: DataTypes.TEXT,
      createdAt: timestamp(),
      updatedAt: timestamp(),
    },
    { sequelize, tableName: 'programs', ...common },
  )
  ProgramCourse.init(
    {
      programId: { type: DataTypes.UUID, primaryKey: true },
      courseId: { type: DataTypes.UUID, primaryKey: true },
      position: { type: DataTypes.INTEGER, allowNull: false },
    },
    { sequelize, tableName: 'program_courses', timestamps: false, ...common },
  )
  CourseAssignment.init(
    {
      userId: { type: DataTypes.UUID, primaryKey: true },
      courseId: { type: DataTypes.UUID, primaryKey: true },
      assignedBy: DataTypes.UUID,
      createdAt: timestamp(),
    },
    { sequelize, tableName: 'course_assignments', updatedAt: false, ...common },
  )
  ProgramAssignment.init(
    {
      userId: { type: DataTypes.UUID, primaryKey: true },
      programId: { type: DataTypes.UUID, primaryKey: true },
      assignedBy: DataTypes.UUID,
      createdAt: timestamp(),
    },
    { sequelize, tableName: 'program_assignments', updatedAt: false, ...common },
  )
  PasswordResetToken.init(
    {
      id: uuid,
      userId: { type: DataTypes.UUID, allowNull: false },
      tokenHash: { type: DataTypes.TEXT, allowNull: false },
      purpose: { type: DataTypes.TEXT, allowNull: false },
      expiresAt: { type: DataTypes.DATE, allowNull: false },
      usedAt: DataTypes.DATE,
      createdAt: timestamp(),
    },
    { sequelize, tableName: 'password_reset_tokens', updatedAt: false, ...common },
  )
  BridgeTokenUse.init(
    {
      jti: { type: DataTypes.TEXT, primaryKey: true },
      expiresAt: { type: DataTypes.DATE, allowNull: false },
      usedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: DataTypes.NOW },
    },
    { sequelize, tableName: 'bridge_token_uses', timestamps: false, ...common },
  )
  Setting.init(
    {
      key: { type: DataTypes.TEXT, primaryKey: true },
      value: { type: DataTypes.JSONB, allowNull: false },
      updatedAt: timestamp(),
    },
    { sequelize, tableName: 'settings', createdAt: false, ...common },
  )

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
