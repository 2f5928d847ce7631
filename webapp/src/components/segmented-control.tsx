import { useId } from 'react';

interface SegmentedControlProps<T extends string> {
  legend: string;
  name: string;
  options: readonly { value: T; label: string }[];
  value: T | null;
  onChange: (value: T) => void;
  error?: string | null;
}

/** A choice of one among a few, as radio buttons that look like a toggle. */
export function SegmentedControl<T extends string>({ legend, name, options, value, onChange, error }: SegmentedControlProps<T>) {
  const id = useId();
  return (
    <fieldset className="segmented" aria-describedby={error ? `${id}-error` : undefined}>
      <legend className="field__label">{legend}</legend>
      <div className="segmented__options">
        {options.map((option) => (
          <label key={option.value} className="segmented__option" data-checked={value === option.value || undefined}>
            <input
              type="radio"
              name={name}
              value={option.value}
              checked={value === option.value}
              onChange={() => {
                onChange(option.value);
              }}
            />
            <span>{option.label}</span>
          </label>
        ))}
      </div>
      {error ? (
        <p id={`${id}-error`} className="field__message field__message--error">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}
