-- Data warehousing: the sales of a chain of 12 stores over 2024 and 2025, as a star schema.
--
--   dim_date       731 rows    one row per calendar day; date_key is the date as YYYYMMDD
--   dim_product     40 rows    what the chain sells: 5 categories of 8 products
--   dim_store       12 rows    the stores, in 4 regions
--   fact_sales  ~100,000 rows  one row per sale line: a product sold in a store on a day
--
-- The sales are generated, not random: every "random" choice comes from the md5 hash of the line's
-- day and number, so every build holds exactly the same rows. Weekends, November and December are
-- busier; some products and stores sell more than others; 15 % of lines were sold at 20 % off.

CREATE TABLE dim_date (
  date_key      integer  PRIMARY KEY,          -- 20250131 for 31 January 2025
  full_date     date     NOT NULL UNIQUE,
  year          integer  NOT NULL,
  quarter       integer  NOT NULL,             -- 1 to 4
  month         integer  NOT NULL,             -- 1 to 12
  month_name    text     NOT NULL,             -- January to December
  day_of_month  integer  NOT NULL,
  day_of_week   integer  NOT NULL,             -- 1 = Monday ... 7 = Sunday
  day_name      text     NOT NULL,             -- Monday to Sunday
  is_weekend    boolean  NOT NULL
);

INSERT INTO dim_date
SELECT to_char(d, 'YYYYMMDD')::integer,
       d,
       extract(year FROM d)::integer,
       extract(quarter FROM d)::integer,
       extract(month FROM d)::integer,
       to_char(d, 'FMMonth'),
       extract(day FROM d)::integer,
       extract(isodow FROM d)::integer,
       to_char(d, 'FMDay'),
       extract(isodow FROM d) IN (6, 7)
FROM generate_series(date '2024-01-01', date '2025-12-31', interval '1 day') AS g(ts),
     LATERAL (SELECT g.ts::date AS d) AS day;

CREATE TABLE dim_product (
  product_key   integer       PRIMARY KEY,
  sku           text          NOT NULL UNIQUE,
  product_name  text          NOT NULL,
  category      text          NOT NULL,
  brand         text          NOT NULL,
  list_price    numeric(8,2)  NOT NULL
);

INSERT INTO dim_product (product_key, sku, product_name, category, brand, list_price) VALUES
  (1,  'EL-001', 'Wireless Earbuds',        'Electronics', 'Sonora',     59.00),
  (2,  'EL-002', 'Bluetooth Speaker',       'Electronics', 'Sonora',     89.00),
  (3,  'EL-003', 'USB-C Charger',           'Electronics', 'Voltix',     24.50),
  (4,  'EL-004', 'Smart Watch',             'Electronics', 'Pulse',     199.00),
  (5,  'EL-005', 'E-Reader',                'Electronics', 'Pagewise',  129.00),
  (6,  'EL-006', 'Power Bank',              'Electronics', 'Voltix',     34.90),
  (7,  'EL-007', 'Noise-Cancelling Headphones', 'Electronics', 'Sonora', 249.00),
  (8,  'EL-008', 'Webcam',                  'Electronics', 'Pagewise',   69.00),
  (9,  'HK-001', 'Chef''s Knife',           'Home & Kitchen', 'Forge',   45.00),
  (10, 'HK-002', 'Cast Iron Pan',           'Home & Kitchen', 'Forge',   39.90),
  (11, 'HK-003', 'Coffee Grinder',          'Home & Kitchen', 'Crema',   54.00),
  (12, 'HK-004', 'French Press',            'Home & Kitchen', 'Crema',   29.00),
  (13, 'HK-005', 'Linen Tea Towels',        'Home & Kitchen', 'Hearth',  12.50),
  (14, 'HK-006', 'Storage Jars (Set of 3)', 'Home & Kitchen', 'Hearth',  22.00),
  (15, 'HK-007', 'Electric Kettle',         'Home & Kitchen', 'Crema',   49.00),
  (16, 'HK-008', 'Cutting Board',           'Home & Kitchen', 'Forge',   27.50),
  (17, 'SP-001', 'Yoga Mat',                'Sports',      'Stride',     32.00),
  (18, 'SP-002', 'Running Socks',           'Sports',      'Stride',      9.90),
  (19, 'SP-003', 'Water Bottle',            'Sports',      'Summit',     18.00),
  (20, 'SP-004', 'Dumbbell Pair',           'Sports',      'Ironline',   64.00),
  (21, 'SP-005', 'Cycling Helmet',          'Sports',      'Summit',     79.00),
  (22, 'SP-006', 'Resistance Bands',        'Sports',      'Ironline',   19.50),
  (23, 'SP-007', 'Trail Backpack',          'Sports',      'Summit',     95.00),
  (24, 'SP-008', 'Tennis Balls (4)',        'Sports',      'Stride',      7.50),
  (25, 'TY-001', 'Building Blocks Set',     'Toys',        'Brickly',    49.99),
  (26, 'TY-002', 'Wooden Train',            'Toys',        'Oakwood',    34.99),
  (27, 'TY-003', 'Puzzle 1000 Pieces',      'Toys',        'Mindful',    17.99),
  (28, 'TY-004', 'Plush Bear',              'Toys',        'Oakwood',    14.99),
  (29, 'TY-005', 'Board Game Classic',      'Toys',        'Mindful',    29.99),
  (30, 'TY-006', 'Remote Control Car',      'Toys',        'Brickly',    59.99),
  (31, 'TY-007', 'Art Kit',                 'Toys',        'Mindful',    24.99),
  (32, 'TY-008', 'Kite',                    'Toys',        'Oakwood',    19.99),
  (33, 'GR-001', 'Ground Coffee 500 g',     'Grocery',     'Crema',       8.50),
  (34, 'GR-002', 'Green Tea (50 bags)',     'Grocery',     'Leafline',    4.20),
  (35, 'GR-003', 'Dark Chocolate',          'Grocery',     'Cacao & Co',  2.95),
  (36, 'GR-004', 'Olive Oil 1 l',           'Grocery',     'Leafline',   11.90),
  (37, 'GR-005', 'Granola',                 'Grocery',     'Morning',     5.60),
  (38, 'GR-006', 'Honey Jar',               'Grocery',     'Morning',     7.80),
  (39, 'GR-007', 'Sparkling Water (6)',     'Grocery',     'Leafline',    3.99),
  (40, 'GR-008', 'Pasta 1 kg',              'Grocery',     'Morning',     2.49);

CREATE TABLE dim_store (
  store_key   integer  PRIMARY KEY,
  store_code  text     NOT NULL UNIQUE,
  store_name  text     NOT NULL,
  city        text     NOT NULL,
  region      text     NOT NULL,
  store_type  text     NOT NULL,    -- Flagship, Standard or Outlet
  opened_on   date     NOT NULL
);

INSERT INTO dim_store (store_key, store_code, store_name, city, region, store_type, opened_on) VALUES
  (1,  'N01', 'Leeds Central',       'Leeds',       'North', 'Flagship', '2012-03-01'),
  (2,  'N02', 'York Minster Street', 'York',        'North', 'Standard', '2016-09-15'),
  (3,  'N03', 'Newcastle Quayside',  'Newcastle',   'North', 'Standard', '2019-05-20'),
  (4,  'S01', 'Brighton Lanes',      'Brighton',    'South', 'Standard', '2014-06-01'),
  (5,  'S02', 'Southampton Docks',   'Southampton', 'South', 'Outlet',   '2018-11-10'),
  (6,  'S03', 'Canterbury High St',  'Canterbury',  'South', 'Standard', '2021-04-12'),
  (7,  'E01', 'Norwich Market',      'Norwich',     'East',  'Standard', '2015-02-02'),
  (8,  'E02', 'Cambridge Arcade',    'Cambridge',   'East',  'Flagship', '2013-10-05'),
  (9,  'E03', 'Ipswich Retail Park', 'Ipswich',     'East',  'Outlet',   '2020-08-28'),
  (10, 'W01', 'Bristol Harbourside', 'Bristol',     'West',  'Flagship', '2011-07-18'),
  (11, 'W02', 'Exeter Cathedral Yard', 'Exeter',    'West',  'Standard', '2017-03-30'),
  (12, 'W03', 'Plymouth Barbican',   'Plymouth',    'West',  'Outlet',   '2022-01-20');

CREATE TABLE fact_sales (
  sales_id      integer       NOT NULL,
  date_key      integer       NOT NULL,
  product_key   integer       NOT NULL,
  store_key     integer       NOT NULL,
  quantity      integer       NOT NULL,
  unit_price    numeric(8,2)  NOT NULL,   -- the price paid for one unit (list price, or 20 % off)
  sales_amount  numeric(10,2) NOT NULL    -- quantity * unit_price
);

-- Lines per day: 112 on a weekday, 142 on a weekend; 45 more in December and 20 more in November,
-- 15 fewer in January and February; and one more every 30 days as the chain grows. Lines are numbered
-- day after day (sales_id). Each line takes 64 bits of the md5 hash of its day and number and cuts
-- them into four whole numbers r1..r4 from 0 to 65535, which make its choices (whole-number
-- arithmetic only, so no floating-point rounding can differ between machines):
--   r1  the product: r1 * (r1 + 65536) favours the lower end of the 40 positions, and "* 17 % 40"
--       (17 is coprime with 40) spreads that end over the whole list, so the best sellers are not
--       simply products 1, 2 and 3;
--   r2  the store, by each store's share of the lines (in %):
--         1:14  2:8  3:7  4:9  5:6  6:7  7:8  8:12  9:5  10:13  11:6  12:5
--   r3  the quantity, 1 to 5, mostly 1;
--   r4  the price: 15 % of lines were sold at 20 % off the list price.
INSERT INTO fact_sales (sales_id, date_key, product_key, store_key, quantity, unit_price, sales_amount)
WITH day AS (
  SELECT date_key, lines, sum(lines) OVER (ORDER BY date_key) - lines AS lines_before
  FROM (
    SELECT date_key,
           112
           + CASE WHEN is_weekend THEN 30 ELSE 0 END
           + CASE month WHEN 12 THEN 45 WHEN 11 THEN 20 WHEN 1 THEN -15 WHEN 2 THEN -15 ELSE 0 END
           + (full_date - date '2024-01-01') / 30 AS lines
    FROM dim_date
  ) AS per_day
),
line AS MATERIALIZED (   -- materialized: each line's hash is computed once
  SELECT day.lines_before + n AS sales_id,
         day.date_key,
         ('x' || left(md5(day.date_key || '-' || n), 16))::bit(64)::bigint AS h
  FROM day CROSS JOIN LATERAL generate_series(1, day.lines) AS n
),
draw AS (
  SELECT sales_id,
         date_key,
         h & 65535 AS r1,
         h >> 16 & 65535 AS r2,
         h >> 32 & 65535 AS r3,
         h >> 48 & 65535 AS r4
  FROM line
),
sale AS (
  SELECT draw.sales_id,
         draw.date_key,
         p.product_key,
         width_bucket(draw.r2 * 100 / 65536, ARRAY[14, 22, 29, 38, 44, 51, 59, 71, 76, 89, 95]) + 1 AS store_key,
         1 + 5 * draw.r3 * draw.r3 * draw.r3 / 281474976710656 AS quantity,   -- 5 * (r3 / 65536) ^ 3
         CASE WHEN draw.r4 * 100 < 15 * 65536 THEN round(p.list_price * 0.8, 2) ELSE p.list_price END AS unit_price
  FROM draw
  JOIN dim_product AS p
    ON p.product_key = 40 * draw.r1 * (draw.r1 + 65536) / 8589934592 * 17 % 40 + 1
)
SELECT sales_id, date_key, product_key, store_key, quantity, unit_price, quantity * unit_price
FROM sale;

-- Keys made and checked once after the load (as a warehouse load does), not row by row during it.
ALTER TABLE fact_sales
  ADD PRIMARY KEY (sales_id),
  ADD FOREIGN KEY (date_key)    REFERENCES dim_date,
  ADD FOREIGN KEY (product_key) REFERENCES dim_product,
  ADD FOREIGN KEY (store_key)   REFERENCES dim_store;

CREATE INDEX ON fact_sales (date_key);
CREATE INDEX ON fact_sales (product_key);
CREATE INDEX ON fact_sales (store_key);

-- no ANALYZE here: the portal analyzes every table once the dataset is built
