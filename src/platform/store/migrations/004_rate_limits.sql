-- rate-limiter-flexible's PostgreSQL table: points used per key in the current window.
CREATE TABLE rate_limits (
  key varchar(255) PRIMARY KEY,
  points integer NOT NULL DEFAULT 0,
  expire bigint
);
