// The demo catalogue. The YouTube ids are real public videos on the subject (SQL, PostgreSQL,
// database design, normalisation, ETL, data warehousing), reused across lessons because this is
// demo data; the durations are demo values for progress and percentages, not the videos' lengths.

type DemoVideo = {
  title: string
  description: string
  youtubeId: string
  /** seconds */
  duration: number
  preview?: boolean
  /** indexes of earlier videos in the same course that must be completed first */
  prerequisites?: number[]
}

type DemoFile = {
  kind: 'document' | 'scenario'
  /** the file under db/seeds/files/, stored under this name, which is also the content entry's title */
  fileName: string
}

export type DemoCourse = {
  /** stable handle used by the program, the assignments and the progress below */
  slug: 'sql' | 'modelling' | 'etl' | 'warehouse'
  title: string
  description: string
  videos: DemoVideo[]
  files: DemoFile[]
}

export const embedUrl = (youtubeId: string) => `https://www.youtube-nocookie.com/embed/${youtubeId}`

export const DEMO_COURSES: DemoCourse[] = [
  {
    slug: 'sql',
    title: 'SQL Fundamentals',
    description:
      'Learn to ask a relational database precise questions. You start with tables, rows and keys, then filter and sort with SELECT, combine tables with joins, summarise with GROUP BY and break hard questions into readable steps with subqueries and common table expressions. Every lesson uses the same small bookshop database, so by the end you can write the queries behind a real monthly sales report.',
    videos: [
      {
        title: 'What SQL Is and Why It Lasts',
        description:
          'A quick tour of the language every relational database speaks: declarative queries, tables with typed columns, and why a query written decades ago still runs today.',
        youtubeId: 'zsjvFFKOm3c',
        duration: 143,
        preview: true,
      },
      {
        title: 'Relational Tables in PostgreSQL',
        description:
          'Meet the database used throughout the course. Tables, primary keys, foreign keys and constraints, and how PostgreSQL protects the data you put in it.',
        youtubeId: 'n2Fluyr3lbc',
        duration: 157,
        preview: true,
      },
      {
        title: 'Filtering and Sorting with SELECT',
        description:
          'Choose the columns you need, keep only the rows that matter with WHERE, and order the result. Covers comparison operators, AND/OR, IN, BETWEEN, LIKE and the special handling of NULL.',
        youtubeId: 'p3qvj9hO_Bo',
        duration: 720,
        prerequisites: [0],
      },
      {
        title: 'Joining Tables',
        description:
          'Combine rows from several tables through their keys. Inner, left and full outer joins side by side, what happens to unmatched rows, and how to spot a join that multiplies rows by mistake.',
        youtubeId: '9yeOJ0ZMUYw',
        duration: 600,
        prerequisites: [2],
      },
      {
        title: 'Grouping and Aggregate Functions',
        description:
          'Turn detail rows into totals with COUNT, SUM, AVG, MIN and MAX. Group by one or more columns and filter groups with HAVING, and learn why every selected column must be grouped or aggregated.',
        youtubeId: 'HXV3zeQKqGY',
        duration: 840,
        prerequisites: [2],
      },
      {
        title: 'Subqueries and Common Table Expressions',
        description:
          'Answer multi-step questions such as "customers who spent more than the average" by nesting queries or naming each step with WITH. Ends with the full query for the bookshop sales report.',
        youtubeId: '7S_tz1z_5bA',
        duration: 780,
        prerequisites: [3, 4],
      },
    ],
    files: [
      {
        kind: 'document',
        fileName: 'SQL Joins Cheat Sheet.pdf',
      },
      {
        kind: 'scenario',
        fileName: 'Scenario - Bookshop Monthly Sales Report.pdf',
      },
    ],
  },
  {
    slug: 'modelling',
    title: 'Data Modelling for Relational Databases',
    description:
      'Design schemas that stay correct as an application grows. You learn to turn requirements into entities and relationships, choose keys, normalise to third normal form and decide deliberately when to denormalise. The course works through a clinic appointment system from interview notes to a finished schema with constraints.',
    videos: [
      {
        title: 'Why Model Before You Build',
        description:
          'What goes wrong when tables are created ad hoc: duplicated facts, update anomalies and reports nobody trusts. How a conceptual, logical and physical model each answer a different question.',
        youtubeId: 'ztHopE5Wnpc',
        duration: 540,
        preview: true,
      },
      {
        title: 'Entities, Attributes and Relationships',
        description:
          'Find the nouns that deserve their own table, the facts that describe them and the relationships between them. Read and draw one-to-one, one-to-many and many-to-many relationships in an ER diagram.',
        youtubeId: '7S_tz1z_5bA',
        duration: 660,
      },
      {
        title: 'Choosing Keys: Natural and Surrogate',
        description:
          'What makes a good primary key, when an email address or product code is stable enough to serve as one, and why most schemas use surrogate keys with unique constraints on the natural ones.',
        youtubeId: 'HXV3zeQKqGY',
        duration: 600,
        prerequisites: [1],
      },
      {
        title: 'Normalisation to Third Normal Form',
        description:
          'Work through first, second and third normal form on a real spreadsheet export. Each step removes one kind of redundancy, and you will see exactly which anomaly it prevents.',
        youtubeId: 'UrYLYV7WSHM',
        duration: 900,
        prerequisites: [1],
      },
      {
        title: 'When to Denormalise',
        description:
          'Normalised schemas are the default, not a dogma. Learn the legitimate reasons to store derived or duplicated data, and the constraints, triggers or jobs that keep such copies honest.',
        youtubeId: 'p3qvj9hO_Bo',
        duration: 480,
        prerequisites: [3],
      },
    ],
    files: [
      {
        kind: 'document',
        fileName: 'Normal Forms Quick Reference.pdf',
      },
      {
        kind: 'scenario',
        fileName: 'Scenario - Clinic Appointments Data Model.pdf',
      },
    ],
  },
  {
    slug: 'etl',
    title: 'Building ETL Pipelines',
    description:
      'Move data from operational systems into an analytical store reliably. You learn to extract full and incremental loads, clean and conform data in a staging area, load it idempotently with upserts, and prove each run correct with row counts and reconciliation checks. The examples use plain SQL and PostgreSQL so the ideas carry over to any tool.',
    videos: [
      {
        title: 'What ETL Is and Where It Fits',
        description:
          'Extract, transform, load: the three steps between the systems that run a business and the warehouse that reports on it. How ETL differs from ELT and when each is the better choice.',
        youtubeId: 'OW5OgsLpDCQ',
        duration: 420,
        preview: true,
      },
      {
        title: 'Extracting Data: Full and Incremental Loads',
        description:
          'Copy everything every night, or only what changed? Watermark columns, change data capture and the traps of clocks, late-arriving rows and deleted records.',
        youtubeId: 'J326LIUrZM8',
        duration: 660,
      },
      {
        title: 'Transforming: Cleaning and Conforming Data',
        description:
          "Standardise dates, currencies and codes, remove duplicates, and map each source's identifiers to one conformed key. Why transformations belong in a staging schema, not in the source query.",
        youtubeId: 'p3qvj9hO_Bo',
        duration: 720,
        prerequisites: [1],
      },
      {
        title: 'Loading Safely: Upserts and Idempotent Runs',
        description:
          'Load so that running the same batch twice changes nothing. INSERT ... ON CONFLICT, MERGE, loading into a new partition and swapping it in, and wrapping each load in a transaction.',
        youtubeId: 'HXV3zeQKqGY',
        duration: 600,
        prerequisites: [2],
      },
      {
        title: 'Data Quality Checks and Reconciliation',
        description:
          'Catch problems before the report does: row counts per batch, sums that must match the source, referential checks on the staging tables, and what to do with rows that fail.',
        youtubeId: '7S_tz1z_5bA',
        duration: 540,
        prerequisites: [3],
      },
    ],
    files: [
      {
        kind: 'document',
        fileName: 'ETL Run Checklist.pdf',
      },
      {
        kind: 'scenario',
        fileName: 'Scenario - Incremental Order Load.pdf',
      },
    ],
  },
  {
    slug: 'warehouse',
    title: 'Data Warehousing and Dimensional Design',
    description:
      'Build a warehouse that answers business questions quickly and consistently. You learn how analytical workloads differ from transactional ones, how to design fact and dimension tables around a declared grain, how star and snowflake schemas compare, and how slowly changing dimensions keep history. You finish by querying a retail star schema for the reports a sales team asks for every week.',
    videos: [
      {
        title: 'What a Data Warehouse Is For',
        description:
          'One integrated, historical, query-friendly copy of the business: why operational databases cannot play that role, and where data marts and data lakes fit around a warehouse.',
        youtubeId: 'J326LIUrZM8',
        duration: 600,
        preview: true,
      },
      {
        title: 'OLTP and OLAP Workloads',
        description:
          'Many small writes versus few large reads. How the two workloads shape table design, indexing and storage, and why columnar engines dominate analytics.',
        youtubeId: 'OW5OgsLpDCQ',
        duration: 480,
      },
      {
        title: 'Facts, Dimensions and Grain',
        description:
          'Declare the grain first: what exactly one fact row means. Then choose additive measures for the fact table and descriptive attributes for the dimensions around it.',
        youtubeId: 'ztHopE5Wnpc',
        duration: 720,
        prerequisites: [0],
      },
      {
        title: 'Star and Snowflake Schemas',
        description:
          'Compare a star schema with denormalised dimensions to a snowflake that normalises them. Query simplicity, storage, and why most teams choose the star.',
        youtubeId: 'UrYLYV7WSHM',
        duration: 660,
        prerequisites: [2],
      },
      {
        title: 'Slowly Changing Dimensions',
        description:
          "A customer moves city: should last year's sales move with them? Type 1 overwrites, type 2 adds a versioned row, type 3 keeps the previous value, and how to load each.",
        youtubeId: '7S_tz1z_5bA',
        duration: 780,
        prerequisites: [2],
      },
      {
        title: 'Querying a Star Schema',
        description:
          'Write the weekly sales reports against the finished retail star: revenue by week and region, year-on-year comparisons with the date dimension, and top products per category.',
        youtubeId: '9yeOJ0ZMUYw',
        duration: 600,
        prerequisites: [3],
      },
    ],
    files: [
      {
        kind: 'document',
        fileName: 'Star Schema Design Guide.pdf',
      },
      {
        kind: 'document',
        fileName: 'Slowly Changing Dimensions Explained.pdf',
      },
      {
        kind: 'scenario',
        fileName: 'Scenario - Retail Sales Star Schema.pdf',
      },
    ],
  },
]

export const DEMO_PROGRAM = {
  title: 'Analytics Engineering Path',
  description:
    'From a well-designed operational schema to a warehouse the business trusts. The path starts with data modelling, so that sources are understood and normalised, and continues with dimensional design, so that reports are fast, consistent and keep their history. Take the courses in order; each scenario builds on the previous one.',
  path: 'analytics-engineering',
  learningPath: 'Data Modelling for Relational Databases, then Data Warehousing and Dimensional Design',
  duration: '6 weeks',
  price: '249.00',
  courses: ['modelling', 'warehouse'] as const,
}

/** Printed at start so the demo can be tried; an empty database is the only place it is ever set. */
export const DEMO_PASSWORD = 'Demo@2026portal'

type DemoRole = 'superadmin' | 'admin' | 'coach' | 'learner'

export const DEMO_ACCOUNTS: { role: DemoRole; userName: string; email: string; firstName: string; lastName: string }[] =
  [
    {
      role: 'superadmin',
      userName: 'superadmin',
      email: 'superadmin@example.com',
      firstName: 'Sofia',
      lastName: 'Lindqvist',
    },
    { role: 'admin', userName: 'admin', email: 'admin@example.com', firstName: 'Adrian', lastName: 'Mensah' },
    { role: 'coach', userName: 'coach', email: 'coach@example.com', firstName: 'Carla', lastName: 'Ruiz' },
    { role: 'learner', userName: 'learner1', email: 'learner1@example.com', firstName: 'Lena', lastName: 'Fischer' },
    { role: 'learner', userName: 'learner2', email: 'learner2@example.com', firstName: 'Omar', lastName: 'Haddad' },
  ]
