/** One of a queue's tabs: the status it shows, its name, and how many wait in it when known. */
export interface QueueTab<Status extends string> {
  value: Status;
  label: string;
  count?: number;
}

/**
 * The tabs above a console queue (reports, word sets) that switch the status it lists. The
 * page keeps the status (in the address) and lists it in the panel under the tabs.
 */
export function QueueTabs<Status extends string>({
  label,
  tabs,
  selected,
  onSelect,
}: {
  label: string;
  tabs: readonly QueueTab<Status>[];
  selected: Status;
  onSelect: (status: Status) => void;
}) {
  return (
    <div className="console-tabs" role="tablist" aria-label={label}>
      {tabs.map((tab) => (
        <button
          key={tab.value}
          type="button"
          role="tab"
          aria-selected={selected === tab.value}
          className="console-tabs__tab"
          onClick={() => {
            onSelect(tab.value);
          }}
        >
          {tab.label}
          {tab.count !== undefined ? <span className="console-tabs__count">{tab.count}</span> : null}
        </button>
      ))}
    </div>
  );
}
