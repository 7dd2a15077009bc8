-- Domains name the idkit key kinds, so one db_type override in sqlc.yaml
-- maps every such column, NOT NULL or nullable, to the right Go type.
CREATE DOMAIN objectid AS bytea CHECK (octet_length(VALUE) = 12);
CREATE DOMAIN snowflake AS bigint CHECK (VALUE > 0);

CREATE TABLE authors (
    id   objectid PRIMARY KEY,
    name text     NOT NULL
);

CREATE TABLE books (
    id        snowflake PRIMARY KEY,
    author_id objectid  NOT NULL REFERENCES authors (id),
    editor_id objectid  NULL REFERENCES authors (id),
    -- A plain bigint column, mapped by a per-column override.
    series_id bigint    NULL,
    title     text      NOT NULL
);
