/** The request shapes of the analytics API, shared as types with core/ (which imports nothing else of ours). */

export type FilterOperator = 'contains' | 'is_any_of';

export interface FilterCondition {
  object: string;
  field: string;
  operator: FilterOperator;
  value: string | string[];
}

/** Filters inside a group are ANDed; groups are ORed (the API's filter_groups). */
export interface FilterGroup {
  filters: FilterCondition[];
}

export type SortDirection = 1 | -1;

/** One Marketing request: dates go in the query string, the rest in the JSON body. */
export interface MarketingRequest {
  startDate?: string;
  endDate?: string;
  filterGroups?: FilterGroup[];
  page?: number;
  limit?: number;
  sort?: { key: string; value: SortDirection };
}
