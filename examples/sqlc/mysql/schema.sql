CREATE TABLE authors (
    id   BINARY(12)   NOT NULL PRIMARY KEY,
    name VARCHAR(100) NOT NULL
);

CREATE TABLE books (
    id        BIGINT       NOT NULL PRIMARY KEY,
    author_id BINARY(12)   NOT NULL,
    editor_id BINARY(12)   NULL,
    series_id BIGINT       NULL,
    title     VARCHAR(200) NOT NULL,
    FOREIGN KEY (author_id) REFERENCES authors (id),
    FOREIGN KEY (editor_id) REFERENCES authors (id)
);
