export interface PageInput {
  page?: number;
  perPage?: number;
}

export interface Page {
  page: number;
  perPage: number;
  limit: number;
  offset: number;
}

export function toPage(input: PageInput): Page {
  const page = input.page ?? 1;
  const perPage = input.perPage ?? 20;
  // A page far past the end is still a page past the end (200, empty), not an OFFSET overflow.
  return { page, perPage, limit: perPage, offset: Math.min((page - 1) * perPage, Number.MAX_SAFE_INTEGER) };
}

export function paginated<T>(data: T[], page: Page, total: number) {
  return {
    data,
    pagination: {
      page: page.page,
      perPage: page.perPage,
      total,
      totalPages: Math.ceil(total / page.perPage),
    },
  };
}
