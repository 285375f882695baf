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
  return { page, perPage, limit: perPage, offset: (page - 1) * perPage };
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
