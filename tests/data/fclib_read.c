/* Print what FCLIB's own reader (libfclib, Debian's libfclib-dev) reads from a global-form problem file.
 *
 * Written for tests/test_fclib_reader.py against FCLIB's public API (fclib.h): fclib_read_global,
 * fclib_read_solution and fclib_read_guesses, the functions FCLIB's tools and Siconos call. Nothing here reads
 * HDF5 itself, so what this prints is exactly what FCLIB hands its users.
 *
 * Usage: fclib_read FILE
 *
 * One item a line, its name first:
 *   title|description|math_info HEX   the string's bytes up to the reader's NUL, in hex (any byte shows)
 *   spacedim N
 *   M|H m n nz nzmax                   then M.p, M.i, M.x (and H's): the arrays as the reader returns them
 *   f|w|mu ...                         the vectors
 *   solution.v|.u|.r ...               the stored solution
 *   guesses N                          then guess1.v, guess1.u, guess1.r, ...
 * Floats print with 17 significant digits, so they read back to the bit. Exit status 0; FCLIB's reader itself
 * exits 1 on what it cannot read.
 */
#include <stdio.h>
#include <string.h>

#include <fclib.h>

static void print_text(const char *name, const char *text)
{
  if (!text) return;
  printf("%s ", name);
  for (const unsigned char *c = (const unsigned char *)text; *c; c++) printf("%02x", *c);
  printf("\n");
}

/* "prefix.field" (or "prefix" when field is empty), then the values. */
static void print_ints(const char *prefix, const char *field, const int *values, int count)
{
  printf("%s%s%s", prefix, *field ? "." : "", field);
  for (int k = 0; k < count; k++) printf(" %d", values[k]);
  printf("\n");
}

static void print_doubles(const char *prefix, const char *field, const double *values, int count)
{
  printf("%s%s%s", prefix, *field ? "." : "", field);
  for (int k = 0; k < count; k++) printf(" %.17g", values[k]);
  printf("\n");
}

/* A matrix's sizes and arrays; their lengths follow fclib.h's description of each storage. */
static void print_matrix(const char *name, const struct fclib_matrix *mat)
{
  int pointers = mat->nz == -1 ? mat->n + 1 : mat->nz == -2 ? mat->m + 1 : mat->nz;
  int entries = mat->nz >= 0 ? mat->nz : mat->nzmax;
  printf("%s %d %d %d %d\n", name, mat->m, mat->n, mat->nz, mat->nzmax);
  print_ints(name, "p", mat->p, pointers);
  print_ints(name, "i", mat->i, entries);
  print_doubles(name, "x", mat->x, entries);
}

/* v, u and r of a solution or guess; l is left out (these problems have no G). */
static void print_state(const char *prefix, const struct fclib_solution *state, int nv, int nr)
{
  print_doubles(prefix, "v", state->v, nv);
  print_doubles(prefix, "u", state->u, nr);
  print_doubles(prefix, "r", state->r, nr);
}

int main(int argc, char **argv)
{
  if (argc != 2) {
    fprintf(stderr, "usage: %s FILE\n", argv[0]);
    return 2;
  }
  struct fclib_global *problem = fclib_read_global(argv[1]);
  if (!problem) return 1;
  if (problem->info) {
    print_text("title", problem->info->title);
    print_text("description", problem->info->description);
    print_text("math_info", problem->info->math_info);
  }
  printf("spacedim %d\n", problem->spacedim);
  print_matrix("M", problem->M);
  print_matrix("H", problem->H);
  int nv = problem->M->n, nr = problem->H->n;
  print_doubles("f", "", problem->f, problem->M->m);
  print_doubles("w", "", problem->w, nr);
  print_doubles("mu", "", problem->mu, nr / problem->spacedim);

  struct fclib_solution *solution = fclib_read_solution(argv[1]);
  if (!solution) return 1;
  print_state("solution", solution, nv, nr);
  int count = 0;
  struct fclib_solution *guesses = fclib_read_guesses(argv[1], &count);
  printf("guesses %d\n", count);
  for (int k = 0; k < count; k++) {
    char prefix[16];
    snprintf(prefix, sizeof prefix, "guess%d", k + 1);
    print_state(prefix, &guesses[k], nv, nr);
  }
  fclib_delete_solutions(solution, 1);
  if (count) fclib_delete_solutions(guesses, count);
  fclib_delete_global(problem);
  return 0;
}
