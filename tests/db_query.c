/* db_query FILE SQL: print the rows of one query, tab-separated, for the shell tests (the sqlite3
 * command-line shell is not a dependency). Exit 2 if the query fails.
 * db_query -w FILE SQL: run statements on FILE, created if missing (a foreign database). */
#include <sqlite3.h>
#include <stdio.h>

int main(int argc, char **argv)
{
  sqlite3 *db;
  sqlite3_stmt *s;
  if (argc == 4 && argv[1][0] == '-' && argv[1][1] == 'w') {
    int ok = sqlite3_open(argv[2], &db) == SQLITE_OK &&
             sqlite3_exec(db, argv[3], NULL, NULL, NULL) == SQLITE_OK;
    if (!ok)
      fprintf(stderr, "db_query: %s\n", sqlite3_errmsg(db));
    sqlite3_close(db);
    return ok ? 0 : 2;
  }
  if (argc != 3) {
    fprintf(stderr, "usage: db_query [-w] FILE SQL\n");
    return 2;
  }
  if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(db, argv[2], -1, &s, NULL) != SQLITE_OK) {
    fprintf(stderr, "db_query: %s\n", sqlite3_errmsg(db));
    return 2;
  }
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    for (int i = 0; i < sqlite3_column_count(s); i++)
      printf("%s%s", i ? "\t" : "", (const char *)sqlite3_column_text(s, i) ? (const char *)sqlite3_column_text(s, i) : "NULL");
    printf("\n");
  }
  sqlite3_finalize(s);
  sqlite3_close(db);
  return rc == SQLITE_DONE ? 0 : 2;
}
