import type { ImageStyle, PdfBlock } from './assets.ts'

// The demo catalogue. The YouTube ids are real public videos on the subject (SQL, PostgreSQL,
// database design, normalisation, ETL, data warehousing), reused across lessons because this is
// demo data; the durations are demo values for progress and percentages, not the videos' lengths.

export type DemoVideo = {
  title: string
  description: string
  youtubeId: string
  /** seconds */
  duration: number
  preview?: boolean
  /** indexes of earlier videos in the same course that must be completed first */
  prerequisites?: number[]
}

export type DemoFile = {
  kind: 'document' | 'scenario'
  /** the stored file name, which is also the content entry's title */
  fileName: string
  title: string
  subtitle: string
  blocks: PdfBlock[]
}

export type DemoCourse = {
  /** stable handle used by the program, the assignments and the progress below */
  slug: 'sql' | 'modelling' | 'etl' | 'warehouse'
  title: string
  description: string
  image: ImageStyle
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
    image: { from: [14, 55, 120], to: [35, 130, 190], motif: 'grid' },
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
        title: 'SQL Joins Cheat Sheet',
        subtitle: 'Which join to use, what it returns, and the mistakes that cost the most time.',
        blocks: [
          {
            paragraph:
              'A join combines rows from two tables whenever a condition on their columns is true. The join type decides what happens to rows that find no partner. All examples use two tables: customers (id, name, city) and orders (id, customer_id, ordered_at, total).',
          },
          { heading: 'INNER JOIN - only the matches' },
          {
            paragraph:
              'Returns one row for every pair of rows that satisfies the condition. Customers without orders and orders without a known customer disappear from the result.',
          },
          {
            code: [
              'SELECT c.name, o.id AS order_id, o.total',
              'FROM customers c',
              'JOIN orders o ON o.customer_id = c.id;',
            ],
          },
          { heading: 'LEFT JOIN - keep everything on the left' },
          {
            paragraph:
              'Every customer appears at least once. Where there is no order, the order columns are NULL. This is the join for questions such as "all customers and their order count, including zero".',
          },
          {
            code: [
              'SELECT c.name, COUNT(o.id) AS orders',
              'FROM customers c',
              'LEFT JOIN orders o ON o.customer_id = c.id',
              'GROUP BY c.id, c.name;',
            ],
          },
          { heading: 'Finding rows without a partner' },
          {
            paragraph:
              'An anti-join keeps the left rows that have no match. Write it as a LEFT JOIN filtered on a NULL key, or more clearly with NOT EXISTS, which also behaves correctly when the joined column can be NULL.',
          },
          {
            code: [
              'SELECT c.name FROM customers c',
              'WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id);',
            ],
          },
          { heading: 'RIGHT, FULL and CROSS joins' },
          {
            bullets: [
              'RIGHT JOIN is a LEFT JOIN with the tables swapped. Most teams write only LEFT JOIN so every query reads the same way.',
              "FULL OUTER JOIN keeps unmatched rows from both sides. Use it to compare two lists, for example yesterday's and today's product catalogue.",
              'CROSS JOIN pairs every row with every row. It is useful for building calendars or grids, and a disaster when it happens by accident.',
            ],
          },
          { heading: 'Common mistakes' },
          {
            bullets: [
              'Filtering the right-hand table in WHERE after a LEFT JOIN silently turns it into an inner join. Put that condition in the ON clause instead.',
              'Joining two one-to-many relationships at once (orders and payments of the same customer) multiplies rows, and every SUM is then too large. Aggregate each side first, then join the totals.',
              'Joining on a column that is not unique on the "one" side duplicates rows. Check with GROUP BY key HAVING COUNT(*) > 1 before trusting the result.',
              'Comparing with = NULL never matches. Use IS NULL, or IS NOT DISTINCT FROM when NULLs should count as equal.',
            ],
          },
        ],
      },
      {
        kind: 'scenario',
        fileName: 'Scenario - Bookshop Monthly Sales Report.pdf',
        title: 'Scenario: Bookshop Monthly Sales Report',
        subtitle: 'A hands-on exercise for SQL Fundamentals. Submit your queries as your assessment.',
        blocks: [
          { heading: 'The situation' },
          {
            paragraph:
              'Northwind Books runs three shops and a web store. The owner wants a one-page report at the start of each month and has asked you to write the queries behind it. The data lives in four tables:',
          },
          {
            code: [
              'shops(id, name, city)',
              'books(id, title, author, genre, list_price)',
              'sales(id, shop_id, sold_at, customer_id)',
              'sale_lines(sale_id, book_id, quantity, unit_price)',
            ],
          },
          { heading: 'Your tasks' },
          {
            bullets: [
              'Revenue per shop for last month (quantity times unit price), highest first. Shops with no sales must still appear with 0.',
              'The ten best-selling titles of last month by copies sold, with author and genre.',
              "The share of revenue per genre as a percentage of the month's total, rounded to one decimal.",
              'Customers whose spending last month was above the average spending per customer.',
              'For each shop, the month-on-month change in revenue compared with the month before.',
            ],
          },
          { heading: 'What to hand in' },
          {
            paragraph:
              'One .sql file with a short comment above each query saying which question it answers and any assumption you made (for example how you define "last month" and how you treat refunds stored as negative quantities). Queries should run unchanged on PostgreSQL.',
          },
          { heading: 'How it is assessed' },
          {
            bullets: [
              'Correct results, including the edge cases: shops without sales, books never sold, NULL customer ids for walk-in sales.',
              'Readable queries: meaningful aliases, one clause per line, common table expressions for multi-step logic.',
              'No accidental row multiplication: totals must match a simple SUM over sale_lines.',
            ],
          },
        ],
      },
    ],
  },
  {
    slug: 'modelling',
    title: 'Data Modelling for Relational Databases',
    description:
      'Design schemas that stay correct as an application grows. You learn to turn requirements into entities and relationships, choose keys, normalise to third normal form and decide deliberately when to denormalise. The course works through a clinic appointment system from interview notes to a finished schema with constraints.',
    image: { from: [70, 30, 110], to: [150, 70, 170], motif: 'network' },
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
        title: 'Normal Forms Quick Reference',
        subtitle: 'First, second and third normal form, what each one forbids and how to fix a violation.',
        blocks: [
          {
            paragraph:
              'Normalisation organises columns into tables so that every fact is stored exactly once. A fact stored twice can be updated in one place and forgotten in the other; the normal forms are a checklist against that.',
          },
          { heading: 'First normal form (1NF)' },
          {
            paragraph:
              'Every column holds a single value and every row can be identified by a key. A column such as phone_numbers containing "0123, 0456" or repeating columns phone1, phone2, phone3 break 1NF.',
          },
          {
            paragraph:
              'Fix: move the repeating values to a child table, one row per value, with a foreign key to the parent (patient_phones(patient_id, phone, kind)).',
          },
          { heading: 'Second normal form (2NF)' },
          {
            paragraph:
              'Applies to tables with a composite key. No column may depend on only part of the key. In enrolments(student_id, course_id, course_title, grade), course_title depends on course_id alone.',
          },
          {
            paragraph:
              'Fix: move the partially dependent columns to the table of the key part they depend on (courses(id, title)).',
          },
          { heading: 'Third normal form (3NF)' },
          {
            paragraph:
              'No non-key column may depend on another non-key column. In appointments(id, doctor_id, doctor_room, starts_at), the room belongs to the doctor, not to the appointment.',
          },
          {
            paragraph:
              'Fix: store the room on doctors and reach it through the join. A useful summary: every non-key column depends on the key, the whole key, and nothing but the key.',
          },
          { heading: 'Checks before you call a schema done' },
          {
            bullets: [
              'Can any fact be changed in one row and left stale in another? If so, it is stored twice.',
              'Can you record a new doctor before their first appointment? If not, facts are trapped in the wrong table.',
              "Would deleting the last appointment of a patient also delete the patient's address? That is a deletion anomaly.",
              'Is every business rule you can express declared as a constraint: NOT NULL, UNIQUE, CHECK, FOREIGN KEY?',
            ],
          },
        ],
      },
      {
        kind: 'scenario',
        fileName: 'Scenario - Clinic Appointments Data Model.pdf',
        title: 'Scenario: Clinic Appointments Data Model',
        subtitle: 'A design exercise for Data Modelling. Submit a diagram and the DDL as your assessment.',
        blocks: [
          { heading: 'The situation' },
          {
            paragraph:
              'A group of three physiotherapy clinics books appointments on paper and in a shared spreadsheet. Double bookings happen weekly and nobody can say how many sessions each patient has left on their insurance plan. You have these notes from interviews with the receptionists:',
          },
          {
            bullets: [
              'Patients have a name, date of birth, one or more phone numbers and, optionally, an insurer and a policy number.',
              'Each therapist works at one or more clinics, on fixed weekly hours per clinic.',
              'An appointment is for one patient with one therapist at one clinic, starts at a given time and lasts 30 or 60 minutes.',
              'Appointments can be cancelled; cancellations less than 24 hours ahead are charged.',
              'An insurance plan covers a number of sessions per calendar year.',
            ],
          },
          { heading: 'Your tasks' },
          {
            bullets: [
              'Draw an entity-relationship diagram with cardinalities.',
              'Write PostgreSQL DDL for the tables in third normal form, with primary keys, foreign keys and NOT NULL where the notes require a value.',
              'Express as many business rules as possible as constraints. Hint: an exclusion constraint over a time range can prevent double bookings of a therapist.',
              'Write the query that shows, for one patient, the sessions used and left this year.',
            ],
          },
          { heading: 'What to hand in' },
          {
            paragraph:
              'A PDF or image of the diagram and a .sql file with the DDL and the query. List any assumption you made where the notes are silent, such as whether a therapist can work at two clinics on the same day.',
          },
        ],
      },
    ],
  },
  {
    slug: 'etl',
    title: 'Building ETL Pipelines',
    description:
      'Move data from operational systems into an analytical store reliably. You learn to extract full and incremental loads, clean and conform data in a staging area, load it idempotently with upserts, and prove each run correct with row counts and reconciliation checks. The examples use plain SQL and PostgreSQL so the ideas carry over to any tool.',
    image: { from: [10, 95, 85], to: [40, 160, 120], motif: 'flow' },
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
        title: 'ETL Run Checklist',
        subtitle: 'What every production load should do before, during and after it runs.',
        blocks: [
          {
            paragraph:
              'A pipeline that works once is a script. A pipeline that can run every night for years, survive a failure halfway and be rerun without harm is an ETL process. Use this list when you design a new load or review an existing one.',
          },
          { heading: 'Before the run' },
          {
            bullets: [
              'Record a run id and the extraction window (from and to watermark) in a load log table before reading any data.',
              'Take the new watermark from the source at the start of the run, not from the clock of the ETL server.',
              'Check that the previous run finished. Two overlapping runs of the same load must be impossible (use a lock).',
            ],
          },
          { heading: 'Extract' },
          {
            bullets: [
              'Read with a consistent snapshot: one transaction, or an export taken at a known point in time.',
              'Overlap incremental windows by a safety margin and let the load deduplicate, so late commits are not lost.',
              'Land the raw data unchanged in a staging table with the run id, so any result can be traced back.',
            ],
          },
          { heading: 'Transform' },
          {
            bullets: [
              'Keep transformations in SQL or code under version control, never as manual edits.',
              'Send rows that fail validation to a reject table with the reason, instead of dropping them silently.',
              'Look up conformed keys (customer, product, date) once, in one place.',
            ],
          },
          { heading: 'Load' },
          {
            paragraph:
              'Make the load idempotent: the same input applied twice gives the same target. An upsert keyed on the business key is the simplest way:',
          },
          {
            code: [
              'INSERT INTO dw.customers (customer_code, name, city, loaded_run)',
              'SELECT customer_code, name, city, :run_id FROM staging.customers',
              'ON CONFLICT (customer_code) DO UPDATE',
              '  SET name = EXCLUDED.name, city = EXCLUDED.city,',
              '      loaded_run = EXCLUDED.loaded_run;',
            ],
          },
          { heading: 'After the run' },
          {
            bullets: [
              'Reconcile: rows extracted = rows loaded + rows rejected, and key totals (amounts, quantities) match the source.',
              'Store the counts and the duration in the load log; alert when they differ sharply from the usual.',
              'Advance the watermark only when every step has succeeded.',
            ],
          },
        ],
      },
      {
        kind: 'scenario',
        fileName: 'Scenario - Incremental Order Load.pdf',
        title: 'Scenario: Incremental Order Load',
        subtitle: 'A hands-on exercise for Building ETL Pipelines. Submit your design and SQL as your assessment.',
        blocks: [
          { heading: 'The situation' },
          {
            paragraph:
              'An online shop keeps orders in a PostgreSQL database. Every night, a script copies the whole orders table into the reporting database, which now takes four hours and sometimes overlaps with the morning shift. Orders can be edited for 30 days after they are placed (status, delivery address, quantities), and cancelled orders are deleted.',
          },
          {
            code: [
              'orders(id, customer_id, status, placed_at, updated_at, total)',
              'order_lines(order_id, line_no, product_id, quantity, unit_price)',
            ],
          },
          { heading: 'Your tasks' },
          {
            bullets: [
              'Design an incremental load based on updated_at. Explain how you choose the window and why it overlaps the previous one.',
              'Explain how deleted orders reach the reporting database, and propose the smallest change to the source that makes this reliable.',
              'Write the staging tables and the SQL that loads orders and order lines idempotently.',
              'Write two reconciliation queries that prove a run complete.',
              'Describe what happens when a run fails halfway, and how the next run recovers without manual work.',
            ],
          },
          { heading: 'What to hand in' },
          {
            paragraph:
              'A short design note (one or two pages) and a .sql file. Good answers state their assumptions, handle the edge cases explicitly, and would let a colleague operate the pipeline without asking you.',
          },
        ],
      },
    ],
  },
  {
    slug: 'warehouse',
    title: 'Data Warehousing and Dimensional Design',
    description:
      'Build a warehouse that answers business questions quickly and consistently. You learn how analytical workloads differ from transactional ones, how to design fact and dimension tables around a declared grain, how star and snowflake schemas compare, and how slowly changing dimensions keep history. You finish by querying a retail star schema for the reports a sales team asks for every week.',
    image: { from: [150, 65, 20], to: [215, 140, 40], motif: 'bars' },
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
        title: 'Star Schema Design Guide',
        subtitle: 'Four decisions that shape every dimensional model, in the order to make them.',
        blocks: [
          {
            paragraph:
              'A star schema places one fact table, holding the measurements of a business process, at the centre, surrounded by dimension tables that describe the who, what, where and when of each measurement. It is easy to query and fast to aggregate. Design it in four steps.',
          },
          { heading: '1. Choose the business process' },
          {
            paragraph:
              'Model one process at a time: taking orders, shipping, receiving payments. A process produces events you can count and measure. Departments are not processes; "sales" usually means several.',
          },
          { heading: '2. Declare the grain' },
          {
            paragraph:
              'State in one sentence what a single fact row represents, for example "one product on one sales receipt line". Choose the most detailed grain the source offers: totals can always be computed from detail, never the reverse.',
          },
          { heading: '3. Identify the dimensions' },
          {
            paragraph:
              'For the declared grain, list everything that describes the event: date, store, product, customer, promotion. Each becomes a dimension with a surrogate key and many readable attributes (product name, brand, category, department).',
          },
          { heading: '4. Identify the facts' },
          {
            paragraph:
              'Facts are the numeric measurements true at the grain: quantity, sales amount, discount, cost. Prefer additive facts that can be summed across every dimension; store ratios as their numerator and denominator.',
          },
          {
            code: [
              'CREATE TABLE fact_sales (',
              '  date_key     integer NOT NULL REFERENCES dim_date,',
              '  store_key    integer NOT NULL REFERENCES dim_store,',
              '  product_key  integer NOT NULL REFERENCES dim_product,',
              '  receipt_no   text    NOT NULL,  -- degenerate dimension',
              '  quantity     integer NOT NULL,',
              '  sales_amount numeric(12,2) NOT NULL,',
              '  cost_amount  numeric(12,2) NOT NULL',
              ');',
            ],
          },
          { heading: 'Rules of thumb' },
          {
            bullets: [
              'Every fact table has a date dimension; build it once with one row per day and attributes such as week, month, fiscal period and holiday flags.',
              'Use an "Unknown" row in each dimension instead of NULL foreign keys, so inner joins never lose facts.',
              'Never mix grains in one fact table. Daily totals and receipt lines belong in different tables.',
              'Share conformed dimensions between fact tables so reports across processes line up.',
            ],
          },
        ],
      },
      {
        kind: 'document',
        fileName: 'Slowly Changing Dimensions Explained.pdf',
        title: 'Slowly Changing Dimensions Explained',
        subtitle: 'How to keep or overwrite history when a dimension attribute changes.',
        blocks: [
          {
            paragraph:
              'Dimension attributes change: customers move, products are reclassified, stores change region. For each attribute, decide whether reports should show the value as it is now or as it was when the fact happened.',
          },
          { heading: 'Type 1 - overwrite' },
          {
            paragraph:
              'Update the attribute in place. History is lost and past facts are reported under the new value. Right for corrections (a misspelt name) and for attributes nobody analyses historically.',
          },
          { heading: 'Type 2 - add a new row' },
          {
            paragraph:
              'Close the current row and insert a new version with a new surrogate key. New facts point to the new version; old facts keep pointing to the old one, so history is preserved exactly.',
          },
          {
            code: [
              'dim_customer(customer_key, customer_code, city,',
              '             valid_from, valid_to, is_current)',
              '',
              '-- close the current version',
              'UPDATE dim_customer SET valid_to = :change_date, is_current = false',
              ' WHERE customer_code = :code AND is_current;',
              '-- add the new version',
              'INSERT INTO dim_customer (customer_code, city, valid_from, valid_to, is_current)',
              "VALUES (:code, :new_city, :change_date, DATE '9999-12-31', true);",
            ],
          },
          { heading: 'Type 3 - keep the previous value' },
          {
            paragraph:
              'Add a column such as previous_region next to region. It allows "before and after" reporting for one planned change, such as a sales territory reorganisation, but not a full history.',
          },
          { heading: 'Choosing per attribute' },
          {
            bullets: [
              'Mix types in one dimension: type 2 for city and segment, type 1 for phone number.',
              'Type 2 dimensions grow with every change; track only attributes that matter for analysis.',
              "Load type 2 changes in date order, and look up the version valid on the fact's date when loading facts.",
            ],
          },
        ],
      },
      {
        kind: 'scenario',
        fileName: 'Scenario - Retail Sales Star Schema.pdf',
        title: 'Scenario: Retail Sales Star Schema',
        subtitle: 'A design exercise for Data Warehousing. Submit your model and SQL as your assessment.',
        blocks: [
          { heading: 'The situation' },
          {
            paragraph:
              'Harbour Outdoor sells camping and hiking gear in 40 stores and online. Store managers ask the same questions every Monday, and today each answer takes an analyst half a day of spreadsheet work:',
          },
          {
            bullets: [
              'What were sales and margin last week by region, store and product category, compared with the same week last year?',
              'Which promotions increased the quantity sold, and by how much?',
              'How do online and in-store sales differ for the same products?',
              "When a store moves to another region, last year's figures must stay with the old region.",
            ],
          },
          {
            paragraph:
              'The source is the point-of-sale system (one row per receipt line, with store, product, quantity, price, discount and promotion code) and the web shop (one row per order line).',
          },
          { heading: 'Your tasks' },
          {
            bullets: [
              'Declare the grain of the sales fact table in one sentence and justify it.',
              'Design the dimensions with their main attributes, including a date dimension and a channel (store or online).',
              'Decide for each store and product attribute whether changes are type 1 or type 2, and explain why.',
              'Write the DDL of the star schema and the SQL for the first Monday question.',
              'List the checks that prove a week of sales was loaded completely.',
            ],
          },
          { heading: 'What to hand in' },
          {
            paragraph:
              'A diagram of the star schema, a .sql file with the DDL and the query, and a short note with your decisions. Assessors look for a clearly declared grain, additive facts, conformed dimensions shared by both channels and a correct handling of history.',
          },
        ],
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
  image: { from: [20, 40, 90], to: [20, 120, 140], motif: 'rings' } satisfies ImageStyle,
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
